import BackendKit
import Foundation
import Hummingbird
import ServiceDefaults
import SyncContracts
import WireJSON

/// The meals area of offline-first sync: `GET /api/sync/meals/changes` (meals and custom meals changed after a
/// cursor, tombstones included) and `GET /api/sync/meals/conflicts`. The gateway composes them with the other areas
/// into `/api/sync/changes` and `/api/sync/conflicts`.
struct MealsSyncController: Sendable {
    let feed: any MealsChangeFeed
    let foods: any FoodCatalogSource
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
        let asked = try SyncFeedQuery(since: query["since"].map(String.init), limit: query["limit"].map(String.init))
        guard let found = try await feed.changes(userId: caller.userId, since: asked.since, limit: asked.limit + 1, logger: context.logger)
        else { throw SyncFeedQuery.expired }
        var changes: [SyncChange<MealsSyncState>] = found.meals.map { seq, meal in
            .live(
                seq: seq, type: MealRecord.entityType, id: meal.id.lowercasedString, version: meal.version, modifiedAt: meal.modified.date,
                data: .meal(MealBody(meal, photos: photos)))
        }
        let itemFoods = try await foods.itemFoods(for: found.customMeals.flatMap(\.1.items), logger: context.logger)
        for (seq, custom) in found.customMeals {
            changes.append(
                .live(
                    seq: seq, type: CustomMealRecord.entityType, id: custom.id.lowercasedString, version: custom.version,
                    modifiedAt: custom.modified.date, data: .customMeal(try CustomMealBody(custom, foods: itemFoods))))
        }
        for tombstone in found.tombstones {
            changes.append(
                .tombstone(
                    seq: tombstone.seq, type: tombstone.entityType, id: tombstone.entityId, version: tombstone.version,
                    deletedAt: tombstone.deletedAt))
        }
        changes.sort { $0.seq < $1.seq }
        let page = Array(changes.prefix(asked.limit))
        return SyncChangePage(changes: page, nextCursor: String(page.last?.seq ?? asked.since), hasMore: changes.count > asked.limit)
    }

    /// `GET /api/sync/meals/conflicts?limit=&cursor=`: the conflicts resolved on the caller's meals and custom meals,
    /// newest first.
    @Sendable func conflicts(request: Request, context: AppRequestContext) async throws -> SyncConflictPage<JSONValue> {
        let caller = try CallerIdentity(request)
        let query = request.uri.queryParameters
        let limit = query["limit"].map { Int(String($0)) ?? -1 } ?? 50
        guard (1...100).contains(limit) else { throw APIError.invalid(["limit": "Use 1 to 100."]) }
        return try await feed.conflicts(userId: caller.userId, limit: limit, cursor: query["cursor"].map(String.init), logger: context.logger)
    }
}
