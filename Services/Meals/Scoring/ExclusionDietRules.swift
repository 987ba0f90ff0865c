import FoodData
import Foundation

/// The diets defined by foods they leave out (vegan, vegetarian, paleo). They score by how much of the meal
/// the offending foods make up (their share of its energy, or of its grams when it has none), so a slice of
/// cheese on a big salad lowers a vegan score clearly while a steak alone scores zero:
/// points = 100 × (1 − share)^1.5, and any offending food caps the meal at 79 (yellow), as it no longer fits strictly.
enum ExclusionDietRules {
    /// Vegan: no animal products (meat, fish, dairy, eggs, honey, gelatin).
    static func vegan(_ meal: MealComposition) -> DietScore {
        score(meal, diet: .vegan, fits: "Everything in this meal is plant-based, a full fit for vegan eating.") { traits in
            guard traits.isAnimal else { return [] }
            let kinds = [(traits.isMeat, "meat"), (traits.isFish, "fish"), (traits.isDairy, "dairy"), (traits.isEgg, "egg")]
                .filter(\.0).map(\.1)
            return kinds.isEmpty ? ["animal product"] : kinds
        }
    }

    /// Vegetarian: no meat or fish (dairy and eggs are fine).
    static func vegetarian(_ meal: MealComposition) -> DietScore {
        score(meal, diet: .vegetarian, fits: "Nothing in this meal is meat or fish, a full fit for vegetarian eating.") { traits in
            [(traits.isMeat, "meat"), (traits.isFish, "fish")].filter(\.0).map(\.1)
        }
    }

    /// Paleo: no grains, legumes, dairy or added sugar, and nothing processed (processing level 3 or 4).
    static func paleo(_ meal: MealComposition) -> DietScore {
        let fits = "Everything here is whole food without grains, legumes, dairy or added sugar, a full fit for paleo eating."
        return score(meal, diet: .paleo, fits: fits) { traits in
            [
                (traits.isGrain, "grain"), (traits.isLegume, "legume"), (traits.isDairy, "dairy"),
                (traits.hasAddedSugar, "added sugar"), (traits.processing >= .processed, traits.processing.label),
            ].filter(\.0).map(\.1)
        }
    }

    /// Scores `meal` by the share of offending items; `offences` names why a food does not fit (empty when it does).
    /// The sentence names no verb for the foods, so "eggs" and "steak" both read right:
    /// "Not vegan: cheddar cheese (dairy) and ham (meat), making up 45% of this meal's energy."
    private static func score(
        _ meal: MealComposition, diet: DietPreference, fits: String, offences: (FoodTraits) -> [String]
    ) -> DietScore {
        let offending = meal.items.filter { !offences($0.traits).isEmpty }
        guard !offending.isEmpty else { return DietScore(diet: diet, points: 100, explanation: fits) }
        let share = meal.share { !offences($0.traits).isEmpty }
        let named = Wording.foods(offending) { Wording.list(offences($0.traits)) }
        let explanation = "Not \(diet.displayName): \(named), making up \(meal.describe(share: share))."
        return DietScore(diet: diet, points: min(79, 100 * pow(1 - share, 1.5)), explanation: explanation)
    }
}
