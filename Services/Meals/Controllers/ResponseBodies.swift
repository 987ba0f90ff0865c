import Foundation
import Hummingbird
import PostgresSupport
import SyncContracts

/// A meal as answered by every meal route and by `POST /api/analyze`.
struct MealBody: ResponseCodable, Equatable {
    var id: UUID
    var title: String
    var origin: String
    var description: String?
    var mealType: String?
    var captureKind: String
    var eatenAt: Date
    var localDate: String
    var isConsumed: Bool
    var consumedAt: Date?
    var notes: String?
    var edited: Bool
    var version: Int
    var items: [MealItem]
    var totals: NutrientProfile
    var healthScore: MealHealth?
    var dietScore: DietScore
    /// Phrases of the description that matched no food; they are not counted.
    var unrecognised: [String]
    var tags: [String]
    var photoUrl: String?
    var createdAt: Date
    var updatedAt: Date
    /// When the meal was last written, as the writing client said (`modifiedAt`) or the server's time.
    var modifiedAt: Date
    /// On a write that was not applied: `stale_write_ignored` (the stored meal is newer); absent otherwise.
    var conflict: String?

    init(_ meal: MealRecord, conflict: SyncConflictResolution? = nil) {
        id = meal.id
        title = meal.title
        origin = meal.origin.rawValue
        description = meal.description
        mealType = meal.mealType?.rawValue
        captureKind = meal.captureKind.rawValue
        eatenAt = meal.eatenAt
        localDate = meal.localDate
        isConsumed = meal.isConsumed
        consumedAt = meal.consumedAt
        notes = meal.notes
        edited = meal.edited
        tags = meal.tags
        version = meal.version
        items = meal.items
        totals = meal.totals
        healthScore = meal.health
        dietScore = meal.diet
        unrecognised = meal.unrecognised
        photoUrl = meal.hasPhoto ? "/api/meals/\(meal.id.uuidString.lowercased())/photo" : nil
        createdAt = meal.createdAt
        updatedAt = meal.updatedAt
        modifiedAt = meal.modified.date
        self.conflict = conflict?.rawValue
    }
}

/// A page of meals.
struct MealPageBody: ResponseCodable {
    var meals: [MealBody]
    var nextCursor: String?
}

/// A food of the table in search results.
struct FoodSummaryBody: ResponseCodable {
    var id: String
    var name: String
    var group: String
    var relevance: Double
    var per100g: NutrientProfile
    var measures: [HouseholdMeasure]
}

/// Search results, best first.
struct FoodSearchBody: ResponseCodable {
    var query: String
    var results: [FoodSummaryBody]
}

/// One food with every nutrient of the table.
struct FoodBody: ResponseCodable {
    var id: String
    var name: String
    var group: String
    var traits: FoodTraits
    var per100g: NutrientProfile
    /// Every nutrient the table has for this food, per 100 g, by its USDA name (units as in SR24: g, mg, µg, IU).
    var nutrients: [String: Double]
    var measures: [HouseholdMeasure]
}
