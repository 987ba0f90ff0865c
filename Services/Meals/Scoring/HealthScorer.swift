import EventContracts
import FoodData

/// Scores how nourishing each item is (nutrient density, processing, fit with the user's goals) and a meal as a whole.
enum HealthScorer {
    /// The item's health score with its reason and encouragement; see `NutrientDensity`, `ProcessingLevel.healthPoints`
    /// and `GoalAlignment` for the parts.
    static func assess(_ item: ScorableItem, profile: ScoringProfile) -> ItemHealthAssessment {
        let density = NutrientDensity(item)
        let health = HealthScore(
            nutrientDensity: density.score, processing: item.processingPoints,
            goalAlignment: GoalAlignment.score(item, profile: profile))
        return ItemHealthAssessment(
            health: health, reason: HealthWording.reason(item, density: density),
            encouragement: HealthWording.encouragement(item, density: density, rating: health.rating))
    }

    /// The calorie-weighted mean of the items' scores (plain mean when the meal has no energy); nil for no items.
    /// Weighting by calories keeps a squeeze of lemon from moving the score of a 600 kcal plate.
    static func mealScore(_ items: [(item: ScorableItem, health: HealthScore)]) -> (score: Int, rating: HealthRating)? {
        guard !items.isEmpty else { return nil }
        let energies = items.map { max(0, $0.item.nutrients.calories) }
        let totalEnergy = energies.reduce(0, +)
        let weights = totalEnergy > 0 ? energies.map { $0 / totalEnergy } : items.map { _ in 1 / Double(items.count) }
        let mean = zip(items, weights).reduce(0) { $0 + Double($1.0.health.score) * $1.1 }
        let score = Int(score: mean)
        return (score, HealthRating(score: score))
    }
}
