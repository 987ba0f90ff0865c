import Foundation
import Hummingbird
import Logging
import NIOCore

/// Serves the dashboard reports from `ReportCache`, encoded, while the user's data version is unchanged, so a repeated
/// read costs one indexed query (`user_data_versions`) instead of the profile, summaries, meals and metrics queries,
/// the computation and the encoding. The version is read first: data read after it is at least that new, so a report is never kept
/// under a version newer than its data, and any event applied later bumps the version past it.
struct ReadyReports: Sendable {
    let store: any TrendsStore
    let cache: ReportCache

    /// The user's data version and profile: one query when the profile at that version is cached.
    func state(of userId: UUID, logger: Logger) async throws -> UserDataState {
        let version = try await store.dataVersion(of: userId, logger: logger)
        if let profile = cache.profile(of: userId, version: version) {
            return UserDataState(userId: userId, version: version, profile: profile)
        }
        let profile = try await store.profile(of: userId, logger: logger)
        cache.storeProfile(profile, of: userId, version: version)
        return UserDataState(userId: userId, version: version, profile: profile)
    }

    /// The answer of the report under `key` (which names the route, its parameters and the user's today) as of
    /// `state`: the report computed by `compute` and encoded by `encoder` once per version, then the same bytes.
    /// The headers are the ones Hummingbird gives an encoded value, so the answer is the one the route gave before.
    func answer<Report: Encodable>(
        _ key: String, of state: UserDataState, encoder: JSONEncoder, logger: Logger, compute: () async throws -> Report
    ) async throws -> Response {
        let body: ByteBuffer
        if let ready = cache.report(ByteBuffer.self, of: state.userId, key: key, version: state.version) {
            body = ready
        } else {
            let (report, cacheable) = try await consistently(state, logger: logger, compute: compute)
            body = ByteBuffer(bytes: try encoder.encode(report))
            if cacheable { cache.storeReport(body, of: state.userId, key: key, version: state.version) }
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes)],
            body: ResponseBody(byteBuffer: body))
    }

    /// What `compute` reads, read again while an event of the user was applied in the middle of it (the data version
    /// moved): a report's queries run side by side, each at its own moment, and no answer may mix the days before an
    /// event with the days after it. At most three reads; `cacheable` when the data never moved from `state`'s version.
    func consistently<Value>(_ state: UserDataState, logger: Logger, compute: () async throws -> Value) async throws
        -> (value: Value, cacheable: Bool)
    {
        var version = state.version
        var value = try await compute()
        for attempt in 1...3 {
            let after = try await store.dataVersion(of: state.userId, logger: logger)
            if after == version || attempt == 3 { return (value, after == state.version && version == state.version) }
            version = after
            value = try await compute()
        }
        return (value, false)
    }
}
