import Foundation
import Logging

/// Serves the dashboard reports from `ReportCache` while the user's data version is unchanged, so a repeated read
/// costs one indexed query (`user_data_versions`) instead of the profile, summaries, meals and metrics queries and
/// the computation. The version is read first: data read after it is at least that new, so a report is never kept
/// under a version newer than its data, and any event applied later bumps the version past it.
struct ReadyReports: Sendable {
    let versions: DataVersionReader
    let profiles: ProfileReader
    let cache: ReportCache

    /// The user's data version and profile: one query when the profile at that version is cached.
    func state(of userId: UUID, logger: Logger) async throws -> UserDataState {
        let version = try await versions.version(of: userId, logger: logger)
        if let profile = cache.profile(of: userId, version: version) {
            return UserDataState(userId: userId, version: version, profile: profile)
        }
        let profile = try await profiles.profile(of: userId, logger: logger)
        cache.storeProfile(profile, of: userId, version: version)
        return UserDataState(userId: userId, version: version, profile: profile)
    }

    /// The report under `key` (which names the route, its parameters and the user's today) as of `state`,
    /// computed by `compute` when not yet cached at that version.
    func report<Report: Sendable>(
        _ key: String, of state: UserDataState, compute: () async throws -> Report
    ) async throws -> Report {
        if let ready = cache.report(Report.self, of: state.userId, key: key, version: state.version) { return ready }
        let report = try await compute()
        cache.storeReport(report, of: state.userId, key: key, version: state.version)
        return report
    }
}
