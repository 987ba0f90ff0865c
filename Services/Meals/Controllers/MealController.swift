import BackendKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceDefaults
import SyncContracts

/// The meal lifecycle: `/api/meals` list, manual entry, read, edit, consume and unconsume, delete (photos:
/// `MealPhotoController`).
/// Another user's meal answers 404 everywhere.
struct MealController: Sendable {
    let store: any MealStore
    /// The profile each meal is dated and scored with (waiting for a new user's first one).
    let profiles: any CallerProfileSource
    let foods: any FoodCatalogSource
    let maker: ManualMealMaker
    /// Signs the photo URLs of the meals it answers.
    let photos: PhotoURLSigner
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/meals", use: list)
        router.post("/api/meals", use: create)
        router.get("/api/meals/:id", use: show)
        router.put("/api/meals/:id", use: update)
        router.delete("/api/meals/:id", use: delete)
        router.post("/api/meals/:id/consume", use: consume)
        router.delete("/api/meals/:id/consume", use: unconsume)
    }

    /// `GET /api/meals?limit=&cursor=&from=&to=&status=consumed|scanned&mealType=&tag=`: newest first; dates are the user's.
    @Sendable func list(request: Request, context: AppRequestContext) async throws -> MealPageBody {
        let caller = try CallerIdentity(request)
        let query = request.uri.queryParameters
        var problems: [String: String] = [:]
        let limit = query["limit"].map { Int(String($0)) ?? -1 } ?? 20
        if !(1...100).contains(limit) { problems["limit"] = "Use 1 to 100." }
        var filter = MealListFilter(limit: limit)
        for field in ["from", "to"] {
            guard let value = query[Substring(field)].map(String.init) else { continue }
            if CallerProfile.standard.startOfDay(value) == nil { problems[field] = "must be a date as YYYY-MM-DD" }
            if field == "from" { filter.fromDate = value } else { filter.toDate = value }
        }
        switch query["status"].map(String.init) {
        case nil: break
        case "consumed": filter.consumed = true
        case "scanned": filter.consumed = false
        default: problems["status"] = "Use consumed or scanned."
        }
        if let mealType = query["mealType"].map(String.init) {
            filter.mealType = MealType(rawValue: mealType)
            if filter.mealType == nil { problems["mealType"] = "Use breakfast, lunch, dinner or snack." }
        }
        if let tag = query["tag"].map(String.init) {
            filter.tag = MealTags.filter(tag)
            if filter.tag == nil { problems["tag"] = "Use a tag of 1 to \(MealTags.maximumLength) characters." }
        }
        guard problems.isEmpty else { throw APIError.invalid(problems) }
        if let cursor = query["cursor"] {
            let (micros, id) = try ListCursor.decodeTime(String(cursor))
            filter.cursor = MealCursor(eatenAtMicros: micros, id: id)
        }
        let rows = try await store.list(userId: caller.userId, filter: filter, logger: context.logger)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { ListCursor.encode(time: $0.eatenAt, id: $0.id) } : nil
        return MealPageBody(meals: page.map { MealBody($0, photos: photos) }, nextCursor: next)
    }

    /// `POST /api/meals`: manual entry of items by food id and portion or by free values; 201 with the meal.
    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<MealBody> {
        let caller = try CallerIdentity(request)
        var request = request
        let raw = try await RequestPreconditions.rawBody(&request, context: context)
        let body = try await request.decodeJSON(as: MealEntryRequest.self, context: context)
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        let meal = try await maker.meal(
            body, id: UUID(), userId: caller.userId, body: raw.readableBytesView, profile: profile, logger: context.logger)
        try await store.create(meal, photo: nil, logger: context.logger)
        return EditedResponse(status: .created, headers: MealFactory.headers(for: meal), response: MealBody(meal, photos: photos))
    }

    /// `GET /api/meals/:id` with its version as `ETag`.
    @Sendable func show(request: Request, context: AppRequestContext) async throws -> EditedResponse<MealBody> {
        let caller = try CallerIdentity(request)
        let id = try Self.mealId(context)
        guard let meal = try await store.find(id, userId: caller.userId, logger: context.logger) else {
            throw APIError.notFound(MealRecord.notFound)
        }
        return EditedResponse(headers: MealFactory.headers(for: meal), response: MealBody(meal, photos: photos))
    }

    /// `PUT /api/meals/:id`: new items, portions or values recompute totals and scores; sets `edited`, bumps
    /// `version`. With `If-Match`, 409 `version_conflict` when it names an older version; without, last-write-wins on
    /// `modifiedAt` (200 with the stored meal and `conflict` when the write is older, or the tombstone when the meal
    /// was deleted). When no meal has the id, the client chose it: the meal is created (201), as by `POST /api/meals`.
    @Sendable func update(request: Request, context: AppRequestContext) async throws -> EditedResponse<WriteAnswer<MealBody>> {
        let caller = try CallerIdentity(request)
        let id = try Self.mealId(context)
        var request = request
        let raw = try await RequestPreconditions.rawBody(&request, context: context)
        let body = try await request.decodeJSON(as: MealUpdateRequest.self, context: context)
        let condition = try RequestPreconditions.writeCondition(request, body: raw, modifiedAt: body.modifiedAt, now: now())
        if case .lastWriteWins = condition, body.items != nil,
            try await store.find(id, userId: caller.userId, logger: context.logger) == nil
        {
            if let created = try await createByPut(id, caller: caller, raw: raw, body: body, logger: context.logger) { return created }
        }
        var fields = MealFieldReader(now: now())
        let mealType = fields.mealType(body.mealType)
        let eatenAt = fields.eatenAt(body.eatenAt)
        let title = fields.text(body.title, field: "title", limit: 120)
        let notes = fields.text(body.notes, field: "notes", limit: 2000)
        let tags = fields.tags(body.tags)
        var drafts: [MealItemDraft]?
        if let items = body.items {
            let itemFoods = try await foods.itemFoods(for: items, caller: caller.userId, logger: context.logger)
            do { drafts = try ItemRequestResolver.resolve(items, foods: itemFoods, caller: caller.userId) } catch let error as APIError
                where error.status == .unprocessableContent
            {
                fields.merge(error)
            }
        }
        try fields.check()
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        let newItems = drafts
        let outcome = try await store.update(id, userId: caller.userId, condition: condition, logger: context.logger) { meal in
            if let drafts = newItems {
                meal.apply(MealComposer.compose(drafts, profile: profile.scoring, title: title ?? meal.title))
            } else if let title {
                meal.title = title
            }
            if let mealType { meal.mealType = mealType }
            if let eatenAt { meal.move(to: eatenAt, profile: profile) }
            if body.notes != nil { meal.notes = notes }
            if let tags { meal.tags = tags }
            meal.edited = true
            return true
        }
        return Self.answer(outcome, photos: photos)
    }

    /// `DELETE /api/meals/:id?modifiedAt=`: 204; its photo goes too, a tombstone stays for the changes feed and
    /// `meal.deleted` is sent. Deleting it again is 204 too (an offline client's replay).
    @Sendable func delete(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let caller = try CallerIdentity(request)
        let stamp = try RequestPreconditions.deletionStamp(request, now: now())
        try await store.delete(try Self.mealId(context), userId: caller.userId, stamp: stamp, logger: context.logger)
        return .noContent
    }

    /// `POST /api/meals/:id/consume` {notes, eatenAt, mealType, modifiedAt}: the meal now counts toward the user's day.
    @Sendable func consume(request: Request, context: AppRequestContext) async throws -> EditedResponse<WriteAnswer<MealBody>> {
        let caller = try CallerIdentity(request)
        let id = try Self.mealId(context)
        var request = request
        let raw = try await RequestPreconditions.rawBody(&request, context: context)
        let body = try await Self.optionalBody(request, context: context)
        let now = now()
        var fields = MealFieldReader(now: now)
        let mealType = fields.mealType(body.mealType)
        let eatenAt = fields.eatenAt(body.eatenAt)
        let notes = fields.text(body.notes, field: "notes", limit: 2000)
        try fields.check()
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        let condition = try RequestPreconditions.writeCondition(request, body: raw, modifiedAt: body.modifiedAt, now: now)
        let outcome = try await store.update(id, userId: caller.userId, condition: condition, logger: context.logger) { meal in
            if !meal.isConsumed { meal.consumedAt = now }
            meal.isConsumed = true
            if let mealType { meal.mealType = mealType }
            if let eatenAt { meal.move(to: eatenAt, profile: profile) }
            if body.notes != nil { meal.notes = notes }
            return true
        }
        return Self.answer(outcome, photos: photos)
    }

    /// `DELETE /api/meals/:id/consume?modifiedAt=`: back to scanned (it stops counting); a no-op when it was not consumed.
    @Sendable func unconsume(request: Request, context: AppRequestContext) async throws -> EditedResponse<WriteAnswer<MealBody>> {
        let caller = try CallerIdentity(request)
        let id = try Self.mealId(context)
        let condition = try RequestPreconditions.queryWriteCondition(request, summary: #"{"consumed":false}"#, now: now())
        let outcome = try await store.update(id, userId: caller.userId, condition: condition, logger: context.logger) { meal in
            guard meal.isConsumed else { return false }
            meal.isConsumed = false
            meal.consumedAt = nil
            return true
        }
        return Self.answer(outcome, photos: photos)
    }

    /// The `:id` of a meal route; 422 for anything that is not a UUID.
    static func mealId(_ context: AppRequestContext) throws -> UUID {
        try RequestPreconditions.resourceId(context)
    }

    /// Creates the meal a `PUT` with items names when the id is free (201); nil when the id turned out to be taken
    /// meanwhile, so the write goes on as an edit. A deleted meal's id answers its tombstone, another user's 404.
    private func createByPut(
        _ id: UUID, caller: CallerIdentity, raw: ByteBuffer, body: MealUpdateRequest, logger: Logger
    ) async throws -> EditedResponse<WriteAnswer<MealBody>>? {
        guard let items = body.items else { return nil }
        let entry = MealEntryRequest(
            items: items, title: body.title, mealType: body.mealType, captureKind: body.captureKind, eatenAt: body.eatenAt, notes: body.notes,
            consumed: body.consumed, tags: body.tags, modifiedAt: body.modifiedAt)
        let profile = try await profiles.profile(of: caller.userId, logger: logger)
        let meal = try await maker.meal(entry, id: id, userId: caller.userId, body: raw.readableBytesView, profile: profile, logger: logger)
        switch try await store.createIfAbsent(meal, logger: logger) {
        case .created(let meal):
            return EditedResponse(status: .created, headers: MealFactory.headers(for: meal), response: .entity(MealBody(meal, photos: photos)))
        case .deleted(let tombstone):
            return EditedResponse(response: .deleted(DeletedEntityBody(tombstone, conflict: .deletionPreserved)))
        case .exists: return nil
        case .idTaken: throw APIError.notFound("No such meal.")
        }
    }

    /// The answer to a write of an existing meal.
    static func answer(_ outcome: WriteOutcome<MealRecord>, photos: PhotoURLSigner) -> EditedResponse<WriteAnswer<MealBody>> {
        switch outcome {
        case .written(let meal): EditedResponse(headers: MealFactory.headers(for: meal), response: .entity(MealBody(meal, photos: photos)))
        case .kept(let meal, let conflict):
            EditedResponse(headers: MealFactory.headers(for: meal), response: .entity(MealBody(meal, photos: photos, conflict: conflict)))
        case .deleted(let tombstone, let conflict): EditedResponse(response: .deleted(DeletedEntityBody(tombstone, conflict: conflict)))
        }
    }

    /// The consume body, which may be absent.
    static func optionalBody(_ request: Request, context: AppRequestContext) async throws -> ConsumeRequest {
        try await request.decodeOptionalJSON(as: ConsumeRequest.self, empty: ConsumeRequest(), context: context)
    }
}
