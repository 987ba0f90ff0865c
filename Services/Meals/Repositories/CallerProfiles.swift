import BackendKit
import Foundation
import Logging
import PostgresSupport

/// The profile a meal-writing request dates and scores with. For a user the service has no profile of at all (who
/// registered a moment ago, the registration's `user.profile_updated` still on its way) it waits for the profile:
/// woken as soon as this replica's consumer commits it, re-reading the database every `recheck` for a profile another
/// replica stored, until `limit`; then, or when too many requests wait already, it goes on with the UTC standard, so
/// the wait never fails a write.
struct CallerProfiles: CallerProfileSource {
    let repository: ProfileRepository
    let client: PostgresPool
    let arrivals: ProfileArrivals
    /// The longest a request waits (`MEALS_PROFILE_WAIT_SECONDS`).
    let limit: Duration
    /// How often a waiting request reads the database again (`MEALS_PROFILE_WAIT_RECHECK_SECONDS`).
    let recheck: Duration

    /// The caller's stored profile, after waiting for the first one when none is stored; the standard one when none
    /// came. A cancelled request stops waiting at once (`CancellationError`).
    func profile(of userId: UUID, logger: Logger) async throws -> CallerProfile {
        try await Self.profile(of: userId, arrivals: arrivals, limit: limit, recheck: recheck) {
            try await repository.profile(of: userId, client: client, logger: logger)
        }
    }

    /// `lookup`'s profile of `userId`, waiting as `profile(of:logger:)` does; apart so that tests can hold the event back.
    static func profile(
        of userId: UUID, arrivals: ProfileArrivals, limit: Duration, recheck: Duration, lookup: () async throws -> CallerProfile?
    ) async throws -> CallerProfile {
        switch try await arrivals.wait(for: userId, of: userId, limit: limit, recheck: recheck, lookup: lookup) {
        case .found(let profile): return profile
        case .notYet, .full: return .standard
        }
    }
}
