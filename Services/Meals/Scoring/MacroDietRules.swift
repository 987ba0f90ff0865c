import EventContracts
import FoodData

/// The diets defined by how a meal's energy splits between protein, net carbs and fat (energy shares by
/// Atwater factors, `NutrientProfile.energyShares`). Callers make sure the meal has macro energy.
enum MacroDietRules {
    /// Keto: fat at least 70% of energy, net carbs under 10%, protein 15-25%. From 100, each percentage point
    /// of net carbs above 10 costs 4 (carbs decide ketosis), each point of fat below 70 costs 2, and each
    /// point of protein outside 15-25 costs 1.
    static func keto(_ meal: MealComposition) -> DietScore {
        let shares = meal.totals.energyShares
        let (protein, carbs, fat) = (shares.protein * 100, shares.carbs * 100, shares.fat * 100)
        let proteinMiss = protein < 15 ? 15 - protein : max(0, protein - 25)
        let points = 100 - 4 * max(0, carbs - 10) - 2 * max(0, 70 - fat) - proteinMiss
        let (fatText, carbsText) = (Wording.percent(shares.fat), Wording.percent(shares.carbs))
        let proteinText = Wording.percent(shares.protein)
        let explanation =
            if points >= 80 {
                "Fat gives \(fatText) of this meal's energy and net carbs \(carbsText), right in keto range."
            } else if carbs > 10 {
                "Net carbs give \(carbsText) of this meal's energy, above keto's 10% limit, "
                    + "with fat at \(fatText) where keto aims for 70% or more."
            } else {
                "Net carbs are low at \(carbsText), but fat gives \(fatText) of this meal's energy and protein \(proteinText), "
                    + "where keto aims for 70% or more fat and 15-25% protein."
            }
        return DietScore(diet: .keto, points: points, explanation: explanation)
    }

    /// Low-carb: net carbs up to 20% of energy score 100, 26% still 80 (the usual low-carb ceiling), 40% 45,
    /// and 55% or more 0.
    static func lowCarb(_ meal: MealComposition) -> DietScore {
        let carbs = meal.totals.energyShares.carbs
        let points = lowCarbCurve(carbs * 100)
        let carbsText = Wording.percent(carbs)
        let explanation =
            if carbs <= 0.20 {
                "Net carbs give \(carbsText) of this meal's energy, comfortably low-carb."
            } else if points >= 80 {
                "Net carbs give \(carbsText) of this meal's energy, still under the 26% low-carb eating stays below."
            } else {
                "Net carbs give \(carbsText) of this meal's energy, above the 26% low-carb eating stays below; "
                    + "swapping some starch for vegetables or protein would bring it down."
            }
        return DietScore(diet: .lowCarb, points: points, explanation: explanation)
    }

    /// Balanced: 70% macro fit (1.5 points lost per percentage point outside protein 20-30%, carbs 45-55%,
    /// fat 25-35%), 15% fibre (14 g per 1,000 kcal, the usual guidance, for full marks) and 15% processing
    /// (the items' processing points, weighted by energy).
    static func balanced(_ meal: MealComposition) -> DietScore {
        balanced(meal, diet: .balanced, note: "")
    }

    /// Custom: 1.5 points lost per percentage point outside ±5 of each of the user's percents (scaled to add up
    /// to 100). Without a usable split it scores as balanced, and says so.
    static func custom(_ meal: MealComposition, split: MacroSplit?) -> DietScore {
        guard let target = split.flatMap(MacroTarget.init(custom:)) else {
            return balanced(meal, diet: .custom, note: " (no custom split is set yet)")
        }
        let shares = meal.totals.energyShares
        let points = 100 - pointsPerMissedPercent * target.distance(shares)
        let explanation = splitSentence(shares, target: target, fits: points >= 80, closing: "")
        return DietScore(diet: .custom, points: points, explanation: explanation)
    }

    private static func balanced(_ meal: MealComposition, diet: DietPreference, note: String) -> DietScore {
        let shares = meal.totals.energyShares
        let target = MacroTarget.balanced
        let macroPoints = max(0, 100 - pointsPerMissedPercent * target.distance(shares))
        let fibrePerThousandKcal = meal.totals.calories > 0 ? meal.totals.fiber * 1000 / meal.totals.calories : 0
        let fibrePoints = min(100, fibrePerThousandKcal / 14 * 100)
        let processingPoints = meal.weightedMean { Double($0.traits.processing.healthPoints) }
        let points = 0.7 * macroPoints + 0.15 * fibrePoints + 0.15 * processingPoints
        let closing = "\(note); the meal has \(Wording.amount(meal.totals.fiber)) g fibre"
        let explanation = splitSentence(shares, target: target, fits: macroPoints >= 80, closing: closing)
        return DietScore(diet: diet, points: points, explanation: explanation)
    }

    /// One sentence naming the meal's split against `target`, or the macro furthest from it.
    private static func splitSentence(
        _ shares: (protein: Double, carbs: Double, fat: Double), target: MacroTarget, fits: Bool, closing: String
    ) -> String {
        let misses = target.misses(shares)
        let percents = misses.map { Wording.percent($0.percent / 100) }
        let split = "protein \(percents[0]), carbs \(percents[1]) and fat \(percents[2])"
        guard !fits, let worst = misses.max(by: { abs($0.points) < abs($1.points) }) else {
            return "This meal's energy splits \(split), close to \(target.owner) \(target.summary)\(closing)."
        }
        let others = misses.filter { $0.macro != worst.macro }.map { "\($0.macro) at \(Wording.percent($0.percent / 100))" }
        let direction = worst.points > 0 ? "above" : "below"
        let verb = worst.macro == "carbs" ? "give" : "gives"
        return "\(Wording.opening(worst.macro)) \(verb) \(Wording.percent(worst.percent / 100)) of this meal's energy, "
            + "\(direction) \(target.owner) \(worst.target), with \(Wording.list(others))\(closing)."
    }

    /// 13 points off in all (say protein 35% against 20-30% and fat 17% against 25-35%) still scores green.
    private static let pointsPerMissedPercent = 1.5
    private static let lowCarbCurve = ScoreCurve((20, 100), (26, 80), (40, 45), (55, 0))
}
