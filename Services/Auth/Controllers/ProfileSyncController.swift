import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts
import WireJSON

/// The profile area of the changes feed: `GET /api/sync/profile/changes` (the caller's profile, as
/// `GET /api/users/profile` answers it, when it changed after `since`) and `GET /api/sync/profile/conflicts`
/// (the profile writes last-write-wins did not apply). The gateway merges them with the other areas.
struct ProfileSyncController: Sendable {
    /// The feed's type of a profile change and of a recorded profile conflict.
    static let entityType = "profile"
    static let defaultConflictLimit = 50
    static let maximumConflictLimit = 100

    let store: any AccountStore
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/sync/profile/changes", use: changes)
        router.get("/api/sync/profile/conflicts", use: conflicts)
    }

    /// `GET /api/sync/profile/changes?since=&limit=`: at most one change, the profile (id: the user id), when its
    /// last write's change number is after `since`. 422 `invalid_cursor`, 422 for `limit`, 410 `sync_cursor_expired`.
    @Sendable func changes(request: Request, context: AppRequestContext) async throws -> SyncChangePage<ProfileBody> {
        let caller = try CallerIdentity(request)
        let query = try SyncFeedQuery(
            since: request.uri.queryParameters["since"].map(String.init), limit: request.uri.queryParameters["limit"].map(String.init))
        guard let profile = try await store.profileChange(of: caller, since: query.since, now: now(), logger: context.logger) else {
            return SyncChangePage(changes: [], nextCursor: String(query.since), hasMore: false)
        }
        let stamp = profile.writeStamp ?? WriteStamp(profile.updatedAt, tiebreak: "")
        let change = SyncChange.live(
            seq: profile.changeSeq, type: Self.entityType, id: caller.userId.lowercasedString, version: profile.version,
            modifiedAt: stamp.date, data: ProfileBody(profile))
        return SyncChangePage(changes: [change], nextCursor: String(profile.changeSeq), hasMore: false)
    }

    /// `GET /api/sync/profile/conflicts?limit=&cursor=`: the caller's recorded profile conflicts, newest first.
    /// 422 for a `limit` outside 1...100; 422 `invalid_cursor`.
    @Sendable func conflicts(request: Request, context: AppRequestContext) async throws -> SyncConflictPage<JSONValue> {
        let caller = try CallerIdentity(request)
        var limit = Self.defaultConflictLimit
        if let text = request.uri.queryParameters["limit"] {
            guard let value = Int(text), (1...Self.maximumConflictLimit).contains(value) else {
                throw APIError.invalid(["limit": "Use 1 to \(Self.maximumConflictLimit)."])
            }
            limit = value
        }
        // An empty cursor is no cursor this API made: 422 as any other (`ListCursor`).
        let cursor = request.uri.queryParameters["cursor"].map(String.init)
        return try await store.conflicts(of: caller, limit: limit, cursor: cursor, now: now(), logger: context.logger)
    }
}
