import FoodData

/// An item before scoring: its portion, its nutrients for that portion and where they come from.
struct MealItemDraft: Sendable, Equatable {
    var name: String
    var amount: Double
    var unit: String
    var grams: Double
    var food: FoodRecord?
    var nutrients: NutrientProfile
    var confidence: Double
    var source: ItemSource

    /// A portion of a table food: nutrients are the food's per-100 g values scaled to `grams`.
    static func fromTable(_ food: FoodRecord, name: String, amount: Double, unit: String, grams: Double, confidence: Double) -> MealItemDraft {
        MealItemDraft(
            name: name, amount: amount, unit: unit, grams: grams, food: food, nutrients: food.per100g.scaled(by: grams / 100),
            confidence: confidence, source: .database)
    }

    /// The traits the scorers use: the table food's, else read from the item's name.
    var traits: FoodTraits { food?.traits ?? FoodTraits(group: .other, name: name) }

    /// Warnings for the reviewer: stated calories far from what the macros supply (Atwater 4/4/9, ±25% or 40 kcal).
    var flags: [String] {
        let macroEnergy = nutrients.protein * 4 + nutrients.carbs * 4 + nutrients.fat * 9
        let tolerance = max(40, nutrients.calories * 0.25)
        return abs(macroEnergy - nutrients.calories) > tolerance ? ["calories_inconsistent_with_macros"] : []
    }
}
