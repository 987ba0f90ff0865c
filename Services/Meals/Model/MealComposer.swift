import EventContracts
import FoodData
import Foundation

/// Scores drafted items for a caller and sums them into a meal: per-item health scores with their reason and
/// encouragement, totals, the meal's health score and rating, the diet score for the caller's diet, a title.
enum MealComposer {
    /// What a meal's stored content is made of.
    struct Composition: Sendable, Equatable {
        var title: String
        var items: [MealItem]
        var totals: NutrientProfile
        var health: MealHealth?
        var diet: DietScore
    }

    static func compose(_ drafts: [MealItemDraft], profile: ScoringProfile, title: String? = nil) -> Composition {
        let scorable = drafts.map {
            ScorableItem(name: $0.name, grams: $0.grams, nutrients: $0.nutrients, traits: $0.traits, nutriScore: $0.product?.event.nutriScore)
        }
        var items: [MealItem] = []
        var scored: [(item: ScorableItem, health: HealthScore)] = []
        for (draft, item) in zip(drafts, scorable) {
            let assessment = HealthScorer.assess(item, profile: profile)
            scored.append((item, assessment.health))
            let values = draft.nutrients.rounded
            items.append(
                MealItem(
                    name: draft.name, amount: draft.amount, unit: draft.unit, grams: (draft.grams * 10).rounded() / 10,
                    foodId: draft.food?.id, foodName: draft.food?.name, productId: draft.product?.id, calories: values.calories,
                    protein: values.protein,
                    carbs: values.carbs, fat: values.fat, fiber: values.fiber, sugars: values.sugars,
                    saturatedFat: values.saturatedFat, sodium: values.sodium, confidence: (draft.confidence * 100).rounded() / 100,
                    source: draft.source, healthScore: assessment.health, reason: assessment.reason,
                    encouragement: assessment.encouragement, flags: draft.flags))
        }
        let totals = totals(of: drafts)
        let health = HealthScorer.mealScore(scored).map { MealHealth(score: $0.score, rating: $0.rating) }
        return Composition(
            title: title ?? Self.title(for: drafts.map(\.name)), items: items, totals: totals, health: health,
            diet: DietScorer.score(scorable, profile: profile))
    }

    /// The rounded sum of the drafts' nutrients.
    static func totals(of drafts: [MealItemDraft]) -> NutrientProfile {
        drafts.reduce(NutrientProfile.zero) { $0 + $1.nutrients }.rounded
    }

    /// "Eggs", "Eggs and toast", "Eggs, toast and orange juice", "Eggs, toast and 2 more".
    static func title(for names: [String]) -> String {
        let cleaned = names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = cleaned.first else { return "Meal" }
        let capitalised = first.prefix(1).uppercased() + first.dropFirst()
        switch cleaned.count {
        case 1: return capitalised
        case 2: return "\(capitalised) and \(cleaned[1])"
        case 3: return "\(capitalised), \(cleaned[1]) and \(cleaned[2])"
        default: return "\(capitalised), \(cleaned[1]) and \(cleaned.count - 2) more"
        }
    }
}

/// A meal's health score and its rating.
struct MealHealth: Codable, Sendable, Equatable {
    var score: Int
    var rating: HealthRating
}
