import FoodData

/// One food the model saw, with its portion and its own nutrient estimate for that portion.
struct RecognisedItem: Sendable, Equatable {
    /// What the model called it, such as "fried egg" or "cappuccino".
    var name: String
    /// The portion in household units: `amount` of `unit`, such as 2 "slice" or 1 "cup".
    var amount: Double
    var unit: String
    /// The same portion in grams (millilitres for drinks count as grams).
    var grams: Double
    /// How sure the model is that the food and portion are right, 0...1.
    var confidence: Double
    /// The model's nutrients for the whole portion, not per 100 g; sodium in milligrams.
    var estimate: NutrientProfile
}
