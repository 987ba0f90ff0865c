import BackendKit
import FoodData
import Foundation
import Hummingbird
import Logging
import ServiceDefaults
import SyncContracts
import WireJSON

/// Saved meals to log again: `/api/custom-meals` list, create, read, replace, delete, and log as a consumed meal.
struct CustomMealController: Sendable {
    let customMealStore: any CustomMealStore
    let store: any MealStore
    /// The profile each meal is dated and scored with (waiting for a new user's first one).
    let profiles: any CallerProfileSource
    let foods: any FoodCatalogSource
    /// Signs the photo URLs of the meals it answers.
    let photos: PhotoURLSigner
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/custom-meals", use: list)
        router.post("/api/custom-meals", use: create)
        router.get("/api/custom-meals/:id", use: show)
        router.put("/api/custom-meals/:id", use: replace)
        router.delete("/api/custom-meals/:id", use: delete)
        router.post("/api/custom-meals/:id/log", use: log)
    }

    /// `GET /api/custom-meals?limit=&cursor=`: by name.
    @Sendable func list(request: Request, context: AppRequestContext) async throws -> CustomMealPageBody {
        let caller = try CallerIdentity(request)
        let query = request.uri.queryParameters
        let limit = query["limit"].map { Int(String($0)) ?? -1 } ?? 50
        guard (1...100).contains(limit) else { throw APIError.invalid(["limit": "Use 1 to 100."]) }
        let after = try query["cursor"].map { try ListCursor.decode(String($0)) }.map { (name: $0.key, id: $0.id) }
        let rows = try await customMealStore.list(userId: caller.userId, after: after, limit: limit, logger: context.logger)
        let page = Array(rows.prefix(limit))
        let itemFoods = try await foods.itemFoods(for: page.flatMap(\.items), logger: context.logger)
        return CustomMealPageBody(
            customMeals: try page.map { try CustomMealBody($0, foods: itemFoods) },
            nextCursor: rows.count > limit ? page.last.map { ListCursor.encode(key: $0.name, id: $0.id) } : nil)
    }

    /// `POST /api/custom-meals` {name, mealType, items}: 201 with `Location` and `ETag`, as for meals; items are checked
    /// against the food table now.
    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<CustomMealBody> {
        let caller = try CallerIdentity(request)
        var request = request
        let raw = try await RequestPreconditions.rawBody(&request, context: context)
        let body = try await request.decodeJSON(as: CustomMealRequest.self, context: context)
        let (name, mealType, tags) = try await validate(body, caller: caller, logger: context.logger)
        let now = now()
        let stamp = try WriteStamp.of(modifiedAt: body.modifiedAt, body: raw.readableBytesView, now: now)
        let meal = CustomMealRecord(
            id: UUID(), userId: caller.userId, name: name, mealType: mealType, items: body.items, version: 1, createdAt: now, updatedAt: now,
            modified: stamp, tags: tags ?? [])
        try await customMealStore.create(meal, logger: context.logger)
        return EditedResponse(status: .created, headers: Self.headers(for: meal), response: try await self.body(of: meal, logger: context.logger))
    }

    /// `GET /api/custom-meals/:id` with its version as `ETag`.
    @Sendable func show(request: Request, context: AppRequestContext) async throws -> EditedResponse<CustomMealBody> {
        let caller = try CallerIdentity(request)
        let meal = try await find(context, caller: caller)
        return EditedResponse(headers: Self.headers(for: meal), response: try await body(of: meal, logger: context.logger))
    }

    /// `PUT /api/custom-meals/:id` {name, mealType, items, modifiedAt}: replaces it; 409 when `If-Match` is stale;
    /// without `If-Match`, last-write-wins on `modifiedAt` as for meals, and an id the caller never used creates the
    /// custom meal under it (201; a deleted one's id answers its tombstone, another user's id 404). Every answer with
    /// the custom meal carries its `Location` and its version as `ETag`, as `PUT /api/meals/:id` does.
    @Sendable func replace(request: Request, context: AppRequestContext) async throws -> EditedResponse<WriteAnswer<CustomMealBody>> {
        let caller = try CallerIdentity(request)
        let id = try Self.id(context)
        var request = request
        let raw = try await RequestPreconditions.rawBody(&request, context: context)
        let body = try await request.decodeJSON(as: CustomMealRequest.self, context: context)
        let (name, mealType, tags) = try await validate(body, caller: caller, logger: context.logger)
        let condition = try RequestPreconditions.writeCondition(request, body: raw, modifiedAt: body.modifiedAt, now: now())
        if case .lastWriteWins = condition,
            try await customMealStore.find(id, userId: caller.userId, logger: context.logger) == nil
        {
            let now = now()
            let stamp = try WriteStamp.of(modifiedAt: body.modifiedAt, body: raw.readableBytesView, now: now)
            let meal = CustomMealRecord(
                id: id, userId: caller.userId, name: name, mealType: mealType, items: body.items, version: 1, createdAt: now, updatedAt: now,
                modified: stamp, tags: tags ?? [])
            switch try await customMealStore.createIfAbsent(meal, logger: context.logger) {
            case .created(let meal):
                return EditedResponse(
                    status: .created, headers: Self.headers(for: meal), response: .entity(try await self.body(of: meal, logger: context.logger)))
            case .deleted(let tombstone):
                return EditedResponse(response: .deleted(DeletedEntityBody(tombstone, conflict: .deletionPreserved)))
            case .idTaken: throw APIError.notFound("No such custom meal.")
            case .exists: break  // stored meanwhile: the write goes on as an edit
            }
        }
        let outcome = try await customMealStore.replace(id, userId: caller.userId, condition: condition, logger: context.logger) { meal in
            (meal.name, meal.mealType, meal.items) = (name, mealType, body.items)
            if let tags { meal.tags = tags }
        }
        switch outcome {
        case .written(let meal):
            return EditedResponse(headers: Self.headers(for: meal), response: .entity(try await self.body(of: meal, logger: context.logger)))
        case .kept(let meal, let conflict):
            return EditedResponse(
                headers: Self.headers(for: meal), response: .entity(try await self.body(of: meal, conflict: conflict, logger: context.logger)))
        case .deleted(let tombstone, let conflict): return EditedResponse(response: .deleted(DeletedEntityBody(tombstone, conflict: conflict)))
        }
    }

    /// `DELETE /api/custom-meals/:id`: 204, leaving a tombstone for the changes feed; again, 204.
    @Sendable func delete(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        try await customMealStore.delete(try Self.id(context), userId: caller.userId, logger: context.logger)
        return .noContent
    }

    /// `POST /api/custom-meals/:id/log` {eatenAt, mealType, notes}: 201 with a new consumed meal made of its items.
    @Sendable func log(request: Request, context: AppRequestContext) async throws -> EditedResponse<MealBody> {
        let caller = try CallerIdentity(request)
        let custom = try await find(context, caller: caller)
        let body = try await MealController.optionalBody(request, context: context)
        let now = now()
        var fields = MealFieldReader(now: now)
        let mealType = fields.mealType(body.mealType) ?? custom.mealType
        let eatenAt = fields.eatenAt(body.eatenAt) ?? now
        let notes = fields.text(body.notes, field: "notes", limit: 2000)
        try fields.check()
        let drafts = try ItemRequestResolver.resolve(
            custom.items, foods: try await foods.itemFoods(for: custom.items, caller: caller.userId, logger: context.logger), caller: caller.userId)
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        let meal = MealFactory.make(
            userId: caller.userId, origin: .customMeal,
            composition: MealComposer.compose(drafts, profile: profile.scoring, title: custom.name), profile: profile,
            description: nil, mealType: mealType, captureKind: .quickAdd, eatenAt: eatenAt, consumed: true, notes: notes,
            unrecognised: [], now: now, tags: custom.tags)
        try await store.create(meal, photo: nil, logger: context.logger)
        return EditedResponse(status: .created, headers: MealFactory.headers(for: meal), response: MealBody(meal, photos: photos))
    }

    private func validate(
        _ body: CustomMealRequest, caller: CallerIdentity, logger: Logger
    ) async throws -> (name: String, mealType: MealType?, tags: [String]?) {
        try CustomMealFields.check(
            body, foods: try await foods.itemFoods(for: body.items, caller: caller.userId, logger: logger), caller: caller.userId, now: now())
    }

    /// The answer for a custom meal, its totals from the foods and products its items name.
    private func body(of meal: CustomMealRecord, conflict: SyncConflictResolution? = nil, logger: Logger) async throws -> CustomMealBody {
        try CustomMealBody(meal, foods: try await foods.itemFoods(for: meal.items, logger: logger), conflict: conflict)
    }

    private func find(_ context: AppRequestContext, caller: CallerIdentity) async throws -> CustomMealRecord {
        let id = try Self.id(context)
        guard let meal = try await customMealStore.find(id, userId: caller.userId, logger: context.logger) else {
            throw APIError.notFound("No such custom meal.")
        }
        return meal
    }

    /// A custom meal's `ETag` (its version) and `Location`, as `MealFactory.headers(for:)` gives a meal's.
    static func headers(for meal: CustomMealRecord) -> HTTPFields {
        [.eTag: "\"\(meal.version)\"", .location: "/api/custom-meals/\(meal.id.lowercasedString)"]
    }

    private static func id(_ context: AppRequestContext) throws -> UUID {
        try RequestPreconditions.resourceId(context)
    }
}

/// A custom meal with its items' current totals from the food table.
struct CustomMealBody: ResponseCodable {
    var id: UUID
    var name: String
    var mealType: String?
    var items: [ItemRequest]
    var tags: [String]
    var totals: NutrientProfile
    var version: Int
    var createdAt: Date
    var updatedAt: Date
    /// When it was last written, as the writing client said (`modifiedAt`) or the server's time.
    var modifiedAt: Date
    /// On a write that was not applied: `stale_write_ignored`; absent otherwise.
    var conflict: String?

    init(_ meal: CustomMealRecord, foods: ItemFoods, conflict: SyncConflictResolution? = nil) throws {
        id = meal.id
        name = meal.name
        mealType = meal.mealType?.rawValue
        items = meal.items
        tags = meal.tags
        let drafts = (try? ItemRequestResolver.resolve(meal.items, foods: foods, caller: meal.userId)) ?? []
        totals = MealComposer.totals(of: drafts)
        version = meal.version
        createdAt = meal.createdAt
        updatedAt = meal.updatedAt
        modifiedAt = meal.modified.date
        self.conflict = conflict?.rawValue
    }
}

/// A page of custom meals.
struct CustomMealPageBody: ResponseCodable {
    var customMeals: [CustomMealBody]
    var nextCursor: String?
}
