import FoodData

@testable import MealsService

/// Plausible model answers for the vision tests: two items as the model writes them, and the items they must become.
enum MealPhotoItems {
    static var rice: [String: Any] {
        [
            "name": "white rice", "amount": 1, "unit": "cup", "grams": 158, "confidence": 0.9, "calories_kcal": 205,
            "protein_g": 4.3, "carbs_g": 44.5, "fat_g": 0.4, "fiber_g": 0.6, "sugars_g": 0.1, "saturated_fat_g": 0.1,
            "sodium_mg": 2, "alcohol_g": 0,
        ]
    }

    static var egg: [String: Any] {
        [
            "name": "fried egg", "amount": 2, "unit": "large", "grams": 92, "confidence": 0.8, "calories_kcal": 180,
            "protein_g": 12.5, "carbs_g": 0.8, "fat_g": 14, "fiber_g": 0, "sugars_g": 0.4, "saturated_fat_g": 4,
            "sodium_mg": 190, "alcohol_g": 0,
        ]
    }

    static let expected = [
        RecognisedItem(
            name: "white rice", amount: 1, unit: "cup", grams: 158, confidence: 0.9,
            estimate: NutrientProfile(calories: 205, protein: 4.3, carbs: 44.5, fat: 0.4, fiber: 0.6, sugars: 0.1, saturatedFat: 0.1, sodium: 2)),
        RecognisedItem(
            name: "fried egg", amount: 2, unit: "large", grams: 92, confidence: 0.8,
            estimate: NutrientProfile(calories: 180, protein: 12.5, carbs: 0.8, fat: 14, fiber: 0, sugars: 0.4, saturatedFat: 4, sodium: 190)),
    ]

    /// The rice item with `changes` applied, for answers that are wrong in one way.
    static func rice(with changes: [String: Any]) -> [String: Any] {
        rice.merging(changes) { $1 }
    }
}
