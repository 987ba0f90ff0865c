import Foundation
import Hummingbird
import Logging
import ServiceDefaults
import SyncContracts

/// What registration and the user routes read and write of an account: its creation, its profile and password hash
/// (for a caller whose session is still active, else 401 `session_ended`), a profile change, which commits with its
/// `user.profile_updated`, and the deletion, which commits with `user.deleted`. `PostgresAccountStore` in the service; router tests use an in-memory
/// one. Every call logs to the request's `logger`.
protocol AccountStore: Sendable {
    /// Creates the account, its profile (published) and its first session; 400 `email_taken` when the address has
    /// an account already.
    func register(
        userId: UUID, email: EmailAddress, passwordHash: String, profile: Profile, request: Request, now: Date, logger: Logger
    ) async throws -> SessionBody

    /// The caller's profile; nil when the account has none.
    func profile(of caller: CallerIdentity, now: Date, logger: Logger) async throws -> Profile?

    /// The caller's password hash; nil when the account is gone.
    func passwordHash(of caller: CallerIdentity, now: Date, logger: Logger) async throws -> String?

    /// Applies `update`, stamped `stamp`, to the caller's profile under a row lock and last-write-wins
    /// (`ProfileWrite`): a change gets the next version and change number and is published, no change writes
    /// nothing, a stale write is not applied and is recorded as a conflict with `incoming` (the body as sent).
    /// 404 without a profile; 422 naming every invalid field.
    func updateProfile(
        _ caller: CallerIdentity, with update: ProfileUpdate, stamp: WriteStamp, incoming: JSONValue, now: Date, logger: Logger
    ) async throws -> ProfileWriteResult

    /// The caller's profile when it changed after change number `since` (the profile area of the changes feed);
    /// 410 `sync_cursor_expired` (`SyncFeedQuery.expired`) when `since` is older than what the feed still knows.
    func profileChange(of caller: CallerIdentity, since: Int64, now: Date, logger: Logger) async throws -> Profile?

    /// A page of the caller's recorded profile conflicts, newest first.
    func conflicts(of caller: CallerIdentity, limit: Int, cursor: String?, now: Date, logger: Logger) async throws -> SyncConflictPage<JSONValue>

    /// Deletes the account (and its change clock, tombstones and conflicts) and publishes `user.deleted`; false (and nothing published) when it was already gone,
    /// as for a concurrent second request.
    @discardableResult
    func delete(userId: UUID, now: Date, logger: Logger) async throws -> Bool
}
