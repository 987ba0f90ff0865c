import FoodData

/// An item as the scorers see it: its portion's nutrients and its food traits.
struct ScorableItem: Sendable, Equatable {
    /// How the user knows the food; sentences quote it ("Broccoli", "cheddar cheese").
    var name: String
    var grams: Double
    /// Nutrients for this portion, not per 100 g.
    var nutrients: NutrientProfile
    var traits: FoodTraits
    /// A packaged product's Nutri-Score grade (`a`-`e`), when its label or Open Food Facts gives one.
    var nutriScore: String?

    init(name: String, grams: Double, nutrients: NutrientProfile, traits: FoodTraits, nutriScore: String? = nil) {
        self.name = name
        self.grams = grams
        self.nutrients = nutrients
        self.traits = traits
        self.nutriScore = nutriScore
    }

    /// The processing part of the health score: the processing level's points (NOVA's, for a product that states it),
    /// averaged with the Nutri-Score grade's (a 100, b 80, c 60, d 35, e 10) when the item has one.
    var processingPoints: Int {
        let points = traits.processing.healthPoints
        let grades = ["a": 100, "b": 80, "c": 60, "d": 35, "e": 10]
        guard let grade = nutriScore.flatMap({ grades[$0] }) else { return points }
        return Int((Double(points + grade) / 2).rounded())
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
