/// How well an item serves the user's goals (0-100), from three measures:
/// - portion fit, only with a daily calorie goal: full marks up to half of a meal's share (a third of the
///   daily goal), falling to 0 at one and a half shares;
/// - energy density (kcal per g): full marks up to 1.5 and 0 from 4.5 (the usual low/high density bands);
///   with a calorie deficit goal, stricter: full marks up to 0.8 and 0 from 3.5;
/// - protein: its share of the item's energy, full marks at 15% (general guidance) or at 30% with a protein goal.
/// With a calorie goal the score is 0.4 × portion + 0.3 × density + 0.3 × protein, else 0.6 × density + 0.4 × protein.
/// Carb and fat gram goals are daily totals, judged on the day's log rather than on one item.
enum GoalAlignment {
    /// The goal alignment of `item` for `profile`.
    static func score(_ item: ScorableItem, profile: ScoringProfile) -> Int {
        let inDeficit = (profile.calorieBalanceGoal ?? 0) < 0
        let density = (inDeficit ? deficitDensityCurve : densityCurve)(item.energyDensity)
        let proteinTarget = profile.proteinGoalGrams != nil ? 0.30 : 0.15
        let protein = min(100, item.nutrients.energyShares.protein / proteinTarget * 100)
        let points: Double
        if let dailyGoal = profile.dailyCalorieGoal, dailyGoal > 0 {
            let mealShare = Double(dailyGoal) / 3
            let portion = portionCurve(max(0, item.nutrients.calories) / mealShare)
            points = 0.4 * portion + 0.3 * density + 0.3 * protein
        } else {
            points = 0.6 * density + 0.4 * protein
        }
        return Int(score: points)
    }

    private static let densityCurve = ScoreCurve((1.5, 100), (4.5, 0))
    private static let deficitDensityCurve = ScoreCurve((0.8, 100), (3.5, 0))
    private static let portionCurve = ScoreCurve((0.5, 100), (1.5, 0))
}
