import FoodData
import Foundation

/// Where an item's numbers come from: the USDA table, the vision model's own estimate, the user, or a packaged
/// product's label (the foods service's product).
enum ItemSource: String, Codable, Sendable {
    case database, estimate, manual, product
}

/// One scored item of a stored meal, as answered to clients.
struct MealItem: Codable, Sendable, Equatable {
    var name: String
    var amount: Double
    var unit: String
    var grams: Double
    /// The USDA food the numbers come from; nil for estimates and manual values.
    var foodId: String?
    var foodName: String?
    /// The packaged product the numbers come from (`source` `product`).
    var productId: UUID?
    var calories: Double
    var protein: Double
    var carbs: Double
    var fat: Double
    var fiber: Double
    var sugars: Double
    var saturatedFat: Double
    /// Milligrams.
    var sodium: Double
    /// 0...1: how sure the recognition, the match and the portion are.
    var confidence: Double
    var source: ItemSource
    var healthScore: HealthScore
    var reason: String
    var encouragement: String
    /// Warnings a reviewer should see, such as `calories_inconsistent_with_macros`.
    var flags: [String]

    /// The item's nutrients as one profile.
    var nutrients: NutrientProfile {
        NutrientProfile(
            calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber, sugars: sugars, saturatedFat: saturatedFat,
            sodium: sodium)
    }
}
