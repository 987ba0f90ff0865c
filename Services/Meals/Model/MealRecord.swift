import EventContracts
import FoodData
import Foundation
import SyncContracts

/// A stored meal: what was analysed or entered, whether it was consumed, and its scored content.
struct MealRecord: Sendable, Equatable {
    var id: UUID
    var userId: UUID
    var origin: MealOrigin
    var title: String
    /// The text the meal was analysed from, if any.
    var description: String?
    var mealType: MealType?
    var captureKind: CaptureKind
    var eatenAt: Date
    /// `YYYY-MM-DD` of `eatenAt` in `timeZone`.
    var localDate: String
    var timeZone: String
    var isConsumed: Bool
    var consumedAt: Date?
    var notes: String?
    var edited: Bool
    var version: Int
    var items: [MealItem]
    var totals: NutrientProfile
    var health: MealHealth?
    var diet: DietScore
    /// Phrases of a written meal that matched no food (they are not in the totals).
    var unrecognised: [String]
    /// The id of the meal's photo (it names the photo in signed URLs and changes when the photo is replaced); nil
    /// without one.
    var photoId: UUID?
    /// What became of the photo's thumbnail, as last read or written; nil without a photo (or when not read).
    var thumbnail: PhotoThumbnailState? = nil
    /// Normalised by `MealTags`.
    var tags: [String] = []
    var createdAt: Date
    var updatedAt: Date
    /// The stamp of the last write, for last-write-wins: the client's `modifiedAt` (or the server's time) and its tiebreak.
    var modified: WriteStamp

    var hasPhoto: Bool { photoId != nil }

    /// Replaces the scored content with `composition`.
    mutating func apply(_ composition: MealComposer.Composition) {
        title = composition.title
        items = composition.items
        totals = composition.totals
        health = composition.health
        diet = composition.diet
    }

    /// The event-carried state of this meal.
    var snapshot: MealSnapshot {
        MealSnapshot(
            mealId: id, userId: userId, title: title, origin: origin.rawValue, mealType: mealType?.rawValue,
            captureKind: captureKind.rawValue, eatenAt: eatenAt, localDate: localDate, timeZone: timeZone, isConsumed: isConsumed,
            edited: edited, notes: notes, hasPhoto: hasPhoto, photoId: photoId, tags: tags,
            items: items.map { item in
                MealSnapshotItem(
                    name: item.name, amount: item.amount, unit: item.unit, grams: item.grams, nutrients: item.nutrients.totals,
                    healthScore: item.healthScore.score, healthRating: item.healthScore.rating.rawValue, source: item.source.rawValue,
                    productId: item.productId)
            },
            totals: totals.totals, healthScore: health?.score, healthRating: health?.rating.rawValue,
            dietPreference: diet.diet.rawValue, dietScore: diet.score, dietBand: diet.band.rawValue, dietExplanation: diet.explanation,
            version: version)
    }
}

extension NutrientProfile {
    /// The event contract's form of these values.
    var totals: NutrientTotals {
        NutrientTotals(
            calories: calories, proteinGrams: protein, carbsGrams: carbs, fatGrams: fat, fiberGrams: fiber, sugarsGrams: sugars,
            saturatedFatGrams: saturatedFat, sodiumMilligrams: sodium)
    }
}
