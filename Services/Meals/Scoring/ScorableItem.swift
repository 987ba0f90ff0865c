import FoodData

/// An item as the scorers see it: its portion's nutrients and its food traits.
struct ScorableItem: Sendable, Equatable {
    /// How the user knows the food; sentences quote it ("Broccoli", "cheddar cheese").
    var name: String
    var grams: Double
    /// Nutrients for this portion, not per 100 g.
    var nutrients: NutrientProfile
    var traits: FoodTraits

    init(name: String, grams: Double, nutrients: NutrientProfile, traits: FoodTraits) {
        self.name = name
        self.grams = grams
        self.nutrients = nutrients
        self.traits = traits
    }

    /// A portion of `grams` of a table food, named `name` or else the table's name.
    init(food: FoodRecord, grams: Double, name: String? = nil) {
        self.init(name: name ?? food.name, grams: grams, nutrients: food.per100g.scaled(by: grams / 100), traits: food.traits)
    }

    /// The portion's nutrients per 100 g; zero when the portion has no weight to divide by.
    var per100g: NutrientProfile {
        grams > 0 ? nutrients.scaled(by: 100 / grams) : .zero
    }

    /// Kilocalories per gram, the measure of energy density dietary guidance uses.
    var energyDensity: Double {
        grams > 0 ? max(0, nutrients.calories) / grams : 0
    }
}
