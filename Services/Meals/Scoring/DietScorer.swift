/// Scores how well a meal fits the user's chosen diet (0-100, with a band and one sentence saying why).
enum DietScorer {
    /// What a meal with nothing to judge scores: the middle of the yellow band, so an empty or weightless
    /// meal reads as "not judged" rather than as a pass or a failure.
    static let neutralScore = 70

    /// The meal's score for `profile.diet`; see each rule's documentation for the exact thresholds.
    static func score(_ items: [ScorableItem], profile: ScoringProfile) -> DietScore {
        let meal = MealComposition(items)
        let diet = profile.diet
        guard !meal.isEmpty else {
            return neutral(diet, "There is nothing in this meal to score yet, so it gets a neutral \(neutralScore).")
        }
        // A glass of water or black coffee has no split to judge; calling it perfect or hopeless would mislead.
        if splitDiets.contains(diet) && !meal.hasMacroEnergy {
            return neutral(diet, "This meal has no energy from protein, carbs or fat to split, so it gets a neutral \(neutralScore).")
        }
        switch diet {
        case .keto: return MacroDietRules.keto(meal)
        case .lowCarb: return MacroDietRules.lowCarb(meal)
        case .balanced: return MacroDietRules.balanced(meal)
        case .custom: return MacroDietRules.custom(meal, split: profile.customMacros)
        case .vegan: return ExclusionDietRules.vegan(meal)
        case .vegetarian: return ExclusionDietRules.vegetarian(meal)
        case .paleo: return ExclusionDietRules.paleo(meal)
        case .mediterranean: return MediterraneanRules.score(meal)
        }
    }

    /// The diets judged by the meal's energy split.
    private static let splitDiets: Set<DietPreference> = [.keto, .lowCarb, .balanced, .custom]

    private static func neutral(_ diet: DietPreference, _ explanation: String) -> DietScore {
        DietScore(diet: diet, points: Double(neutralScore), explanation: explanation)
    }
}
