import FoodData

/// An item before scoring: its portion, its nutrients for that portion and where they come from.
struct MealItemDraft: Sendable, Equatable {
    var name: String
    var amount: Double
    var unit: String
    var grams: Double
    var food: FoodRecord?
    /// The packaged product the numbers come from.
    var product: PackagedProduct? = nil
    var nutrients: NutrientProfile
    var confidence: Double
    var source: ItemSource

    init(
        name: String, amount: Double, unit: String, grams: Double, food: FoodRecord?, product: PackagedProduct? = nil,
        nutrients: NutrientProfile, confidence: Double, source: ItemSource
    ) {
        self.name = name
        self.amount = amount
        self.unit = unit
        self.grams = grams
        self.food = food
        self.product = product
        self.nutrients = nutrients
        self.confidence = confidence
        self.source = source
    }

    /// A portion of a table food: nutrients are the food's per-100 g values scaled to `grams`.
    static func fromTable(_ food: FoodRecord, name: String, amount: Double, unit: String, grams: Double, confidence: Double) -> MealItemDraft {
        MealItemDraft(
            name: name, amount: amount, unit: unit, grams: grams, food: food, nutrients: food.per100g.scaled(by: grams / 100),
            confidence: confidence, source: .database)
    }

    /// A portion of a packaged product: its label's values per 100 g (or 100 ml) scaled to `grams`.
    static func fromProduct(_ product: PackagedProduct, name: String, amount: Double, unit: String, grams: Double) -> MealItemDraft {
        MealItemDraft(
            name: name, amount: amount, unit: unit, grams: grams, food: nil, product: product, nutrients: product.nutrients(grams: grams),
            confidence: 1, source: .product)
    }

    /// The traits the scorers use: the product's or the table food's, else read from the item's name.
    var traits: FoodTraits { product?.traits ?? food?.traits ?? FoodTraits(group: .other, name: name) }

    /// Warnings for the reviewer: stated calories far from what the macros supply (Atwater 4/4/9, ±25% or 40 kcal), or
    /// a product whose label lacks energy or a macronutrient (counted as 0).
    var flags: [String] {
        // A label without all the macros cannot be checked against its energy: it is flagged as incomplete instead.
        if let product, !product.isComplete { return ["nutrients_incomplete"] }
        let macroEnergy = nutrients.protein * 4 + nutrients.carbs * 4 + nutrients.fat * 9
        let tolerance = max(40, nutrients.calories * 0.25)
        return abs(macroEnergy - nutrients.calories) > tolerance ? ["calories_inconsistent_with_macros"] : []
    }
}
