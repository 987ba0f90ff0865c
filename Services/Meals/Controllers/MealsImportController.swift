import Foundation
import Hummingbird
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// `POST /api/sync/meals/import` {"meals": [{id, items, title?, mealType?, captureKind?, eatenAt?, notes?, consumed?,
/// modifiedAt?}]}: up to 500 meals from a device's local store, each under the client's id and created as by
/// `POST /api/meals` (its own transaction and events, so trends and sharing follow), answered per item in request
/// order. Importing only creates, so it is idempotent: an id already stored, or deleted since (while its tombstone is
/// kept), is `already_present` and nothing changes (edits of stored meals go through `PUT /api/meals/:id`). A meal
/// dated before the user's kept history is `rejected` (`beyond_history_retention`), as is an item that cannot be read
/// or is invalid, with its problems; never a 4xx for the whole request.
///
/// `customMeals` [{id, name, items, mealType?, tags?, modifiedAt?}] beside `meals` (1 to 500 items in all): each custom
/// meal is created under the client's id as by `PUT /api/custom-meals/:id`, with the same rules (an id stored or deleted
/// is `already_present`, nothing changes), answered after the meals.
struct MealsImportController: Sendable {
    let store: any MealStore
    let customMealStore: any CustomMealStore
    /// The profile each meal is dated and scored with (waiting for a new user's first one).
    let profiles: any CallerProfileSource
    let maker: ManualMealMaker

    static let itemType = MealRecord.entityType

    /// The import body; items are read one by one so that one unreadable item rejects only itself.
    struct ImportRequest: Decodable, Sendable {
        var meals: [JSONValue]?
        var customMeals: [JSONValue]?
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/sync/meals/import", use: importMeals)
    }

    @Sendable func importMeals(request: Request, context: AppRequestContext) async throws -> SyncImportResponse {
        let caller = try CallerIdentity(request)
        let body = try await request.decodeJSON(as: ImportRequest.self, context: context, upTo: SyncImportLimits.maximumBodyBytes)
        guard (1...SyncImportLimits.maximumItems).contains((body.meals?.count ?? 0) + (body.customMeals?.count ?? 0)) else {
            throw APIError.invalid(["meals": "Send 1 to \(SyncImportLimits.maximumItems) meals and custom meals in all."])
        }
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        var results: [SyncImportResult] = []
        for item in body.meals ?? [] {
            results.append(try await importOne(try SyncImportItem(item), userId: caller.userId, profile: profile, context: context))
        }
        for item in body.customMeals ?? [] {
            results.append(try await importCustomMeal(try SyncImportItem(item), userId: caller.userId, context: context))
        }
        return SyncImportResponse(results: results)
    }

    /// Stores one meal unless its id is taken; a problem with the item becomes its `rejected` result. Anything else
    /// (the database gone) fails the request: the meals before it are stored, and importing again answers them
    /// `already_present`.
    private func importOne(_ item: SyncImportItem, userId: UUID, profile: CallerProfile, context: AppRequestContext) async throws
        -> SyncImportResult
    {
        let id = item.string("id")
        do {
            guard let mealId = UUID(uuidString: id) else {
                throw APIError.invalid(["id": "Give every meal the UUID the device stores it under."])
            }
            let entry = try item.decoded(as: MealEntryRequest.self)
            let meal = try await maker.meal(entry, id: mealId, userId: userId, body: item.bytes, profile: profile, logger: context.logger)
            if let date = CalendarDate(meal.localDate), let refusal = profile.retention?.refusal(of: date, field: "eatenAt", now: maker.now()) {
                throw refusal
            }
            switch try await store.createIfAbsent(meal, logger: context.logger) {
            case .created: return SyncImportResult(type: Self.itemType, id: id, status: .created)
            case .exists, .deleted: return SyncImportResult(type: Self.itemType, id: id, status: .alreadyPresent)
            case .idTaken:
                throw APIError(
                    .conflict, code: "id_unavailable", message: "Another meal already has this id; store the meal under a new UUID.",
                    details: ["id": "already used"])
            }
        } catch let error as APIError {
            return try .rejected(type: Self.itemType, id: id, because: error)
        }
    }

    /// Stores one custom meal unless its id is taken, as `importOne` a meal.
    private func importCustomMeal(_ item: SyncImportItem, userId: UUID, context: AppRequestContext) async throws -> SyncImportResult {
        let type = CustomMealRecord.entityType
        let id = item.string("id")
        do {
            guard let mealId = UUID(uuidString: id) else {
                throw APIError.invalid(["id": "Give every custom meal the UUID the device stores it under."])
            }
            let body = try item.decoded(as: CustomMealRequest.self)
            let now = maker.now()
            let foods = try await maker.foods.itemFoods(for: body.items, caller: userId, logger: context.logger)
            let (name, mealType, tags) = try CustomMealFields.check(body, foods: foods, caller: userId, now: now)
            let stamp = try WriteStamp.of(modifiedAt: body.modifiedAt, body: item.bytes, now: now)
            let meal = CustomMealRecord(
                id: mealId, userId: userId, name: name, mealType: mealType, items: body.items, version: 1, createdAt: now, updatedAt: now,
                modified: stamp, tags: tags ?? [])
            switch try await customMealStore.createIfAbsent(meal, logger: context.logger) {
            case .created: return SyncImportResult(type: type, id: id, status: .created)
            case .exists, .deleted: return SyncImportResult(type: type, id: id, status: .alreadyPresent)
            case .idTaken:
                throw APIError(
                    .conflict, code: "id_unavailable", message: "Another custom meal already has this id; store it under a new UUID.",
                    details: ["id": "already used"])
            }
        } catch let error as APIError {
            return try .rejected(type: type, id: id, because: error)
        }
    }
}
