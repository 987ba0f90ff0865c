import BackendKit
import Foundation
import Hummingbird
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

/// The meals area of offline-first sync: `GET /api/sync/meals/changes` (meals and custom meals changed after a
/// cursor, tombstones included) and `GET /api/sync/meals/conflicts`. The gateway composes them with the other areas
/// into `/api/sync/changes` and `/api/sync/conflicts`.
struct MealsSyncController: Sendable {
    let client: PostgresPool
    let meals: MealRepository
    let customMeals: CustomMealRepository
    let foods: FoodCatalogLoader
    /// Signs the photo URLs of the meals it answers.
    let photos: PhotoURLSigner

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/sync/meals/changes", use: changes)
        router.get("/api/sync/meals/conflicts", use: conflicts)
    }

    /// `GET /api/sync/meals/changes?since=&limit=`: by change number; 410 `sync_cursor_expired` when `since` is older
    /// than the deletions still kept.
    @Sendable func changes(request: Request, context: AppRequestContext) async throws -> SyncChangePage<MealsSyncState> {
        let caller = try CallerIdentity(request)
        let query = request.uri.queryParameters
        let feed = try SyncFeedQuery(since: query["since"].map(String.init), limit: query["limit"].map(String.init))
        let catalog = try foods.catalog()
        let logger = context.logger
        let (expired, changes) = try await client.transaction(logger: logger) { connection in
            // One snapshot for the three reads, so a change committed between them cannot be skipped.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            guard try await !SyncClock.isExpired(feed.since, userId: caller.userId, on: connection, logger: logger) else {
                return (true, [SyncChange<MealsSyncState>]())
            }
            let fetch = feed.limit + 1
            var changes: [SyncChange<MealsSyncState>] = []
            for (seq, meal) in try await meals.changed(userId: caller.userId, since: feed.since, limit: fetch, on: connection, logger: logger) {
                changes.append(
                    .live(
                        seq: seq, type: MealStore.entityType, id: meal.id.lowercasedString, version: meal.version,
                        modifiedAt: meal.modified.date, data: .meal(MealBody(meal, photos: photos))))
            }
            for (seq, custom) in try await customMeals.changed(
                userId: caller.userId, since: feed.since, limit: fetch, on: connection, logger: logger)
            {
                changes.append(
                    .live(
                        seq: seq, type: CustomMealStore.entityType, id: custom.id.lowercasedString, version: custom.version,
                        modifiedAt: custom.modified.date, data: .customMeal(try CustomMealBody(custom, catalog: catalog))))
            }
            for tombstone in try await SyncTombstones.changed(
                userId: caller.userId, since: feed.since, limit: fetch, on: connection, logger: logger)
            {
                changes.append(
                    .tombstone(
                        seq: tombstone.seq, type: tombstone.entityType, id: tombstone.entityId, version: tombstone.version,
                        deletedAt: tombstone.deletedAt))
            }
            return (false, changes.sorted { $0.seq < $1.seq })
        }
        if expired { throw SyncFeedQuery.expired }
        let page = Array(changes.prefix(feed.limit))
        return SyncChangePage(changes: page, nextCursor: String(page.last?.seq ?? feed.since), hasMore: changes.count > feed.limit)
    }

    /// `GET /api/sync/meals/conflicts?limit=&cursor=`: the conflicts resolved on the caller's meals and custom meals,
    /// newest first.
    @Sendable func conflicts(request: Request, context: AppRequestContext) async throws -> SyncConflictPage<JSONValue> {
        let caller = try CallerIdentity(request)
        let query = request.uri.queryParameters
        let limit = query["limit"].map { Int(String($0)) ?? -1 } ?? 50
        guard (1...100).contains(limit) else { throw APIError.invalid(["limit": "Use 1 to 100."]) }
        return try await SyncConflictLog.list(
            userId: caller.userId, limit: limit, cursor: query["cursor"].map(String.init), client: client, logger: context.logger)
    }
}
