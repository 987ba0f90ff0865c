import EventContracts
import Foundation

/// `GET /api/share/:token`: what anyone with the link may see. Never the owner's email or user id; the owner's
/// display name only when allowed.
struct SharedMealBody: Encodable, Sendable {
    struct Item: Encodable, Sendable {
        var name: String
        var amount: Double
        var unit: String
        var grams: Double
        var calories: Double
        var proteinGrams: Double
        var carbsGrams: Double
        var fatGrams: Double
        var healthScore: Int
        var healthRating: String
    }

    struct Health: Encodable, Sendable {
        var score: Int
        var rating: String
    }

    struct Diet: Encodable, Sendable {
        /// The diet the score was computed for (keto, vegan, ...).
        var diet: String
        var score: Int
        /// green, yellow or red.
        var band: String
        var explanation: String
    }

    struct Meal: Encodable, Sendable {
        var name: String
        var mealType: String?
        var eatenAt: Date
        /// The owner's calendar day of the meal.
        var localDate: String
        var notes: String?
        var items: [Item]
        var totals: NutrientTotals
        var healthScore: Health?
        var dietScore: Diet
    }

    var token: String
    var meal: Meal
    var sharedBy: String?
    var expiresAt: Date
    var pageUrl: String
    var cardUrl: String
    var photoUrl: String?

    init(_ shared: SharedMeal, addresses: PublicAddresses) {
        let snapshot = shared.meal
        token = shared.token
        meal = Meal(
            name: snapshot.title, mealType: snapshot.mealType, eatenAt: snapshot.eatenAt, localDate: snapshot.localDate,
            notes: snapshot.notes,
            items: snapshot.items.map { item in
                Item(
                    name: item.name, amount: item.amount, unit: item.unit, grams: item.grams, calories: item.nutrients.calories,
                    proteinGrams: item.nutrients.proteinGrams, carbsGrams: item.nutrients.carbsGrams, fatGrams: item.nutrients.fatGrams,
                    healthScore: item.healthScore, healthRating: item.healthRating)
            },
            totals: snapshot.totals,
            healthScore: snapshot.healthScore.map { Health(score: $0, rating: snapshot.healthRating ?? HealthRating(score: $0).rawValue) },
            dietScore: Diet(diet: snapshot.dietPreference, score: snapshot.dietScore, band: snapshot.dietBand, explanation: snapshot.dietExplanation))
        sharedBy = shared.displayName
        expiresAt = shared.expiresAt
        pageUrl = addresses.page(shared.token)
        cardUrl = addresses.card(shared.token)
        photoUrl = shared.photoDigest == nil ? nil : addresses.photo(shared.token)
    }
}
