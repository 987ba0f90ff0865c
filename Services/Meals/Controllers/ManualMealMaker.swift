import Foundation
import Logging
import ServiceDefaults
import SyncContracts

/// Makes a new manual meal from the fields of an entry, as `POST /api/meals`, a creating `PUT /api/meals/:id` and
/// `POST /api/sync/meals/import` send them; 422 naming every invalid field.
struct ManualMealMaker: Sendable {
    let foods: any FoodCatalogSource
    let now: @Sendable () -> Date

    /// The caller's new meal under `id`; `body` is the bytes the entry came in (the tiebreak of its write stamp).
    func meal(
        _ entry: MealEntryRequest, id: UUID, userId: UUID, body: some Sequence<UInt8>, profile: CallerProfile, logger: Logger
    ) async throws -> MealRecord {
        let itemFoods = try await foods.itemFoods(for: entry.items, caller: userId, logger: logger)
        let now = now()
        var fields = MealFieldReader(now: now)
        let mealType = fields.mealType(entry.mealType)
        let captureKind = fields.captureKind(entry.captureKind) ?? .fullMeal
        let eatenAt = fields.eatenAt(entry.eatenAt) ?? now
        let title = fields.text(entry.title, field: "title", limit: 120)
        let notes = fields.text(entry.notes, field: "notes", limit: 2000)
        let tags = fields.tags(entry.tags)
        var drafts: [MealItemDraft] = []
        do { drafts = try ItemRequestResolver.resolve(entry.items, foods: itemFoods, caller: userId) } catch let error as APIError
            where error.status == .unprocessableContent
        {
            fields.merge(error)
        }
        var stamp: WriteStamp?
        do { stamp = try WriteStamp.of(modifiedAt: entry.modifiedAt, body: body, now: now) } catch let error as APIError {
            fields.merge(error)
        }
        try fields.check()
        return MealFactory.make(
            userId: userId, origin: .manual, composition: MealComposer.compose(drafts, profile: profile.scoring, title: title),
            profile: profile, description: nil, mealType: mealType, captureKind: captureKind, eatenAt: eatenAt,
            consumed: entry.consumed ?? true, notes: notes, unrecognised: [], now: now, id: id, modified: stamp,
            tags: tags ?? [])
    }
}
