import EventContracts
import Foundation
import Testing

@testable import TrendsService

/// Which meal events of a batch are reduced to one copy and which are applied one by one.
@Suite("Meal change plan")
struct MealChangePlanTests {
    let user = UUID(), other = UUID()

    @Test("copies of one meal reduce to the first copy of the highest version, meals in the order they first came")
    func copiesReduce() {
        let first = UUID(), second = UUID()
        let plan = MealChangePlan([
            .snapshot(snapshot(second, version: 1, title: "second v1")), .snapshot(snapshot(first, version: 3, title: "first v3")),
            .snapshot(snapshot(second, version: 2, title: "second v2")), .snapshot(snapshot(first, version: 2, title: "first v2")),
            .snapshot(snapshot(first, version: 3, title: "first v3 again")),
        ])
        #expect(plan.newestSnapshots.map(\.title) == ["second v2", "first v3"])
        #expect(plan.inOrder.isEmpty)
    }

    @Test("a meal with a deletion, or claimed by two users, keeps all its events in arrival order")
    func orderSensitiveMealsStayInOrder() {
        let deleted = UUID(), claimed = UUID(), plain = UUID()
        let plan = MealChangePlan([
            .snapshot(snapshot(deleted, version: 1, title: "deleted v1")), .snapshot(snapshot(plain, version: 1, title: "plain")),
            .deletion(MealDeleted(mealId: deleted, userId: user, reason: "unconsumed", version: 2)),
            .snapshot(snapshot(claimed, version: 1, title: "claimed by user")),
            .snapshot(snapshot(claimed, version: 2, title: "claimed by other", owner: other)),
        ])
        #expect(plan.newestSnapshots.map(\.title) == ["plain"])
        #expect(plan.inOrder.map(\.mealId) == [deleted, deleted, claimed, claimed])
        #expect(plan.inOrder.map(\.userId) == [user, user, user, other])
    }

    private func snapshot(_ mealId: UUID, version: Int, title: String, owner: UUID? = nil) -> MealSnapshot {
        let totals = NutrientTotals(calories: 500, proteinGrams: 30, carbsGrams: 50, fatGrams: 20, fiberGrams: 5)
        return MealSnapshot(
            mealId: mealId, userId: owner ?? user, title: title, origin: "manual", mealType: "lunch", captureKind: "full_meal",
            eatenAt: Date(timeIntervalSince1970: 1_773_154_800), localDate: "2026-03-10", timeZone: "UTC", isConsumed: true, edited: false,
            notes: nil, hasPhoto: false, items: [], totals: totals, healthScore: 70, healthRating: "good", dietPreference: "balanced",
            dietScore: 70, dietBand: "yellow", dietExplanation: "Test.", version: version)
    }
}
