import EventContracts
import Foundation
import Testing

/// One event of every topic, encoded exactly as the outbox puts it on the wire, with the optional fields both
/// present and absent.
enum SampleEvents {
    struct Sample: Sendable, CustomTestStringConvertible {
        let name: String
        let topic: Topic
        let bytes: Data
        var testDescription: String { name }
    }

    static let userId = UUID()

    /// The service that publishes each topic (the envelope's `source`).
    static func producer(of topic: Topic) -> String {
        switch topic {
        case .mealAnalyzed, .mealConsumed, .mealDeleted: "meals"
        case .weightLogged, .waterLogged: "metrics"
        case .userProfileUpdated, .userDeleted: "auth"
        case .foodProductChanged: "foods"
        }
    }
    static let time = Date(timeIntervalSince1970: 1_795_000_000.123)

    /// A W3C `traceparent` as a tracing producer writes it into the envelope.
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    static func sample<Payload: EventPayload>(_ name: String, _ payload: Payload, traceparent: String? = nil) -> Sample {
        var envelope = EventEnvelope(source: producer(of: Payload.topic), subject: userId.uuidString.lowercased(), data: payload, time: time)
        envelope.traceparent = traceparent
        return Sample(name: name, topic: Payload.topic, bytes: Data(try! EventCoding.encode(envelope)))
    }

    static func meal(consumed: Bool, full: Bool) -> MealSnapshot {
        let nutrients = NutrientTotals(
            calories: 420, proteinGrams: 32.5, carbsGrams: 12, fatGrams: 24, fiberGrams: 4, sugarsGrams: 3, saturatedFatGrams: 5,
            sodiumMilligrams: 610)
        let item = MealSnapshotItem(
            name: "Salmon", amount: 1, unit: "fillet", grams: 150, nutrients: nutrients, healthScore: 82, healthRating: "nutritious",
            source: "database")
        return MealSnapshot(
            mealId: UUID(), userId: userId, title: "Salmon and greens", origin: full ? "photo" : "manual", mealType: full ? "dinner" : nil,
            captureKind: full ? "full_meal" : "quick_add", eatenAt: time, localDate: "2026-11-22", timeZone: "Europe/Berlin", isConsumed: consumed,
            edited: full, notes: full ? "with lemon" : nil, hasPhoto: full,
            photoId: full ? UUID(uuidString: "5b0e3c8a-2f4d-4e61-9a7c-0d1f2e3a4b5c") : nil, items: [item], totals: nutrients,
            healthScore: full ? 82 : nil, healthRating: full ? "nutritious" : nil, dietPreference: "keto", dietScore: 74, dietBand: "green",
            dietExplanation: "Low in carbohydrates.", version: full ? 3 : 1)
    }

    static let all: [Sample] = [
        sample("meal.analyzed with every field", MealAnalyzed(meal: meal(consumed: false, full: true))),
        sample("meal.analyzed with optional fields absent", MealAnalyzed(meal: meal(consumed: false, full: false))),
        sample("meal.consumed", MealConsumed(meal: meal(consumed: true, full: true))),
        sample("meal.consumed from a traced request", MealConsumed(meal: meal(consumed: true, full: true)), traceparent: traceparent),
        sample("meal.deleted", MealDeleted(mealId: UUID(), userId: userId, reason: "unconsumed", version: 4)),
        sample(
            "weight.logged with weight and ketones",
            WeightLogged(userId: userId, date: "2026-11-22", weightKg: 81.4, ketonesMmolPerLiter: 1.2, notes: "morning", loggedAt: time, version: 2)),
        sample(
            "weight.logged with weight only",
            WeightLogged(userId: userId, date: "2026-11-22", weightKg: 81.4, ketonesMmolPerLiter: nil, loggedAt: time, version: 1)),
        sample(
            "water.logged",
            WaterLogged(userId: userId, date: "2026-11-22", totalMillilitres: 750, entryCount: 3, loggedAt: time, version: 3)),
        sample("user.profile_updated with goals and body data", fullProfile()),
        sample("user.profile_updated without goals", UserProfileUpdated(userId: userId, displayName: "Ana", dietPreference: "balanced", version: 1)),
        sample("user.deleted", UserDeleted(userId: userId, deletedAt: time)),
        sample("food.product_changed from a user, every field", product(community: true)),
        sample("food.product_changed from Open Food Facts, nutrients missing", product(community: false)),
    ]

    static func product(community: Bool) -> FoodProductChanged {
        FoodProductChanged(
            productId: UUID(), version: community ? 2 : 1, barcode: "00036000291452", name: "Greek yoghurt", brand: community ? "Dairy Hill" : nil,
            source: community ? "community" : "openfoodfacts", basis: "100g",
            per100: FoodProductChanged.Nutrients(
                calories: 60, protein: 10, carbs: community ? 3.6 : nil, fat: 0.4, fiber: community ? 0 : nil, sugars: community ? 3.6 : nil,
                saturatedFat: community ? 0.1 : nil, sodium: community ? 40 : nil),
            servingSize: community ? FoodProductChanged.ServingSize(amount: 150, unit: "g") : nil, allergens: community ? ["milk"] : [],
            vegan: community ? false : nil, vegetarian: community ? true : nil, novaGroup: community ? 1 : nil,
            nutriScore: community ? "a" : nil, offered: community, authorId: community ? userId : nil, changedAt: time)
    }

    static func fullProfile() -> UserProfileUpdated {
        var profile = UserProfileUpdated(
            userId: userId, displayName: "Ana", dietPreference: "custom",
            customMacros: MacroSplit(proteinPercent: 30, carbsPercent: 40, fatPercent: 30), dailyCalorieGoal: 2000, proteinGoalGrams: 150,
            carbsGoalGrams: 200, fatGoalGrams: 67, calorieBalanceGoal: -500, targetWeightKg: 72.5, weightUnit: "lbs",
            timeZone: "America/New_York", version: 5)
        profile.heightCm = 168
        profile.birthDate = "1990-04-12"
        profile.sex = "female"
        profile.activityLevel = "moderate"
        profile.dailyWaterGoalMillilitres = 2000
        profile.weekStart = "sunday"
        return profile
    }
}
