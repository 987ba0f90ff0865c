import FoodData

/// Mediterranean eating: most of the plate from vegetables, fruit, legumes, nuts, whole grains, olive oil and
/// fish; poultry, eggs and dairy in moderation; red and processed meat, added sugar and ultra-processed food rarely;
/// saturated fat low. The score is the items' points weighted by their share of the meal's energy, minus 3 for
/// every percentage point of energy from saturated fat above 10%.
enum MediterraneanRules {
    /// The Mediterranean score of `meal`.
    static func score(_ meal: MealComposition) -> DietScore {
        let saturatedFat = meal.saturatedFatShare
        let points = meal.weightedMean { Kind($0.traits).points } - 300 * max(0, saturatedFat - 0.10)
        return DietScore(diet: .mediterranean, points: points, explanation: explanation(meal, points: points))
    }

    /// Names what carries the meal (plants and fish) or what holds it back (limited foods, saturated fat).
    private static func explanation(_ meal: MealComposition, points: Double) -> String {
        let fat = Wording.percent(meal.saturatedFatShare)
        let core = meal.describe(share: meal.share { Kind($0.traits) == .core })
        if points >= 80 {
            return "Plants and fish bring \(core) and saturated fat gives \(fat) of its energy, right in Mediterranean style."
        }
        let limited = meal.items.filter { Kind($0.traits).limits != nil }
        if !limited.isEmpty {
            let named = Wording.foods(limited) { Kind($0.traits).limits ?? "" }
            let share = meal.describe(share: meal.share { Kind($0.traits).limits != nil })
            return "Mediterranean eating keeps these low: \(named), making up \(share), "
                + "with saturated fat at \(fat) of its energy."
        }
        if meal.saturatedFatShare > 0.10 {
            return "Saturated fat gives \(fat) of this meal's energy, above the 10% Mediterranean eating aims for; "
                + "olive oil in place of butter or cream would help."
        }
        return "Plants and fish bring \(core); Mediterranean eating builds most of the plate from vegetables, "
            + "legumes, whole grains and fish."
    }

    /// Where a food stands in Mediterranean eating, checked from the most limited down.
    private enum Kind {
        case ultraProcessed, processedMeat, addedSugar, redMeat, core, moderate, otherProcessed

        init(_ traits: FoodTraits) {
            self =
                if traits.processing == .ultraProcessed { .ultraProcessed } else if traits.isMeat && traits.processing >= .processed {
                    .processedMeat
                } else if traits.hasAddedSugar { .addedSugar } else if traits.isRedMeat {
                    .redMeat
                } else if traits.isFish || (!traits.isAnimal && traits.processing <= .culinaryIngredient) { .core } else if traits.isAnimal {
                    .moderate
                } else { .otherProcessed }
        }

        /// Points out of 100 for a meal made only of this kind of food.
        var points: Double {
            switch self {
            case .ultraProcessed, .processedMeat: 10
            case .addedSugar: 20
            case .redMeat: 35
            case .core: 100
            case .moderate: 65
            case .otherProcessed: 60
            }
        }

        /// What a sentence says about a food Mediterranean eating limits; nil for the rest.
        var limits: String? {
            switch self {
            case .ultraProcessed: "ultra-processed"
            case .processedMeat: "processed meat"
            case .addedSugar: "added sugar"
            case .redMeat: "red meat"
            case .core, .moderate, .otherProcessed: nil
            }
        }
    }
}
