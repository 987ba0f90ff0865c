import EventContracts
import Foundation
import Messaging

/// The events the foods service consumes, as tests make them: received as from the broker, at the time given (the
/// envelope's `time`, from which foods dates an account). The router tests and the store suites use them, so that the
/// PostgreSQL store and the in-memory one are fed the same events.
enum FoodsTestEvents {
    /// `user.profile_updated` of `userId`, as registration publishes it.
    static func profile(of userId: UUID, at time: Date, version: Int = 1) -> ReceivedEvent {
        received(UserProfileUpdated(userId: userId, displayName: "Tester", dietPreference: "balanced", version: version), subject: userId, at: time)
    }

    /// `meal.consumed` (or `meal.analyzed` when not `consumed`) of a meal of `userId` whose items name `products`.
    static func meal(
        _ mealId: UUID, of userId: UUID, version: Int = 1, consumed: Bool = true, products: [UUID] = [], at time: Date
    ) -> ReceivedEvent {
        let totals = NutrientTotals(calories: 300, proteinGrams: 20, carbsGrams: 30, fatGrams: 10, fiberGrams: 3)
        let items = (products.isEmpty ? [nil] : products.map(Optional.some)).map { productId in
            MealSnapshotItem(
                name: "Item", amount: 1, unit: "serving", grams: 150, nutrients: totals, healthScore: 70, healthRating: "good",
                source: productId == nil ? "manual" : "product", productId: productId)
        }
        let snapshot = MealSnapshot(
            mealId: mealId, userId: userId, title: "Meal", origin: "manual", mealType: "lunch", captureKind: "full_meal", eatenAt: time,
            localDate: "2026-11-03", timeZone: "UTC", isConsumed: consumed, edited: version > 1, notes: nil, hasPhoto: false, items: items,
            totals: totals, healthScore: 70, healthRating: "good", dietPreference: "balanced", dietScore: 70, dietBand: "yellow",
            dietExplanation: "Test.", version: version)
        return consumed
            ? received(MealConsumed(meal: snapshot), subject: userId, at: time) : received(MealAnalyzed(meal: snapshot), subject: userId, at: time)
    }

    /// `meal.deleted` (`reason` `deleted` or `unconsumed`).
    static func mealDeleted(_ mealId: UUID, of userId: UUID, version: Int, reason: String = "deleted", at time: Date) -> ReceivedEvent {
        received(MealDeleted(mealId: mealId, userId: userId, reason: reason, version: version), subject: userId, at: time)
    }

    /// `user.deleted`.
    static func userDeleted(_ userId: UUID, at time: Date) -> ReceivedEvent {
        received(UserDeleted(userId: userId, deletedAt: time), subject: userId, at: time)
    }

    private static func received<Payload: EventPayload>(_ payload: Payload, subject: UUID, at time: Date) -> ReceivedEvent {
        let envelope = EventEnvelope(source: "test", subject: subject.uuidString.lowercased(), data: payload, time: time)
        let bytes = try! EventCoding.encode(envelope)
        return ReceivedEvent(header: try! EventCoding.header(of: bytes), bytes: bytes, traceparent: nil)
    }
}
