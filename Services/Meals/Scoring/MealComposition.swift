import FoodData

/// A meal seen as a whole for the diet rules: its summed nutrients and how much of it each item makes up.
struct MealComposition {
    let items: [ScorableItem]
    let totals: NutrientProfile
    /// Each item's part of the meal (summing to 1): its share of the calories, or of the grams when the meal
    /// has no energy (a glass of water, black coffee), so zero-energy meals can still be judged.
    let weights: [Double]
    /// Whether `weights` are energy shares (else gram shares); sentences say "of the energy" or "by weight".
    let weighsByEnergy: Bool

    init(_ items: [ScorableItem]) {
        self.items = items
        self.totals = items.reduce(.zero) { $0 + $1.nutrients }
        let energies = items.map { max(0, $0.nutrients.calories) }
        let grams = items.map { max(0, $0.grams) }
        let totalEnergy = energies.reduce(0, +)
        let totalGrams = grams.reduce(0, +)
        self.weighsByEnergy = totalEnergy > 0
        if totalEnergy > 0 {
            self.weights = energies.map { $0 / totalEnergy }
        } else if totalGrams > 0 {
            self.weights = grams.map { $0 / totalGrams }
        } else {
            self.weights = items.map { _ in 0 }
        }
    }

    /// True when there is nothing to score: no items, or items with neither weight nor energy.
    var isEmpty: Bool { weights.allSatisfy { $0 == 0 } }

    /// Whether protein, carbs or fat give any energy, which every macro-split rule needs.
    var hasMacroEnergy: Bool { totals.macroEnergy > 0 }

    /// The part of the meal (0...1) made up by items matching `predicate`.
    func share(where predicate: (ScorableItem) -> Bool) -> Double {
        zip(items, weights).reduce(0) { $0 + (predicate($1.0) ? $1.1 : 0) }
    }

    /// The mean of `value` over the items, each counted by its part of the meal.
    func weightedMean(_ value: (ScorableItem) -> Double) -> Double {
        zip(items, weights).reduce(0) { $0 + value($1.0) * $1.1 }
    }

    /// How a share of this meal is said: "45% of this meal's energy" or "30% of this meal by weight".
    func describe(share: Double) -> String {
        let amount = share >= 0.995 ? "all" : Wording.percent(share)
        return weighsByEnergy ? "\(amount) of this meal's energy" : "\(amount) of this meal by weight"
    }

    /// Saturated fat's share of the meal's energy (0 for a meal without energy).
    var saturatedFatShare: Double {
        totals.calories > 0 ? totals.saturatedFat * 9 / totals.calories : 0
    }
}
