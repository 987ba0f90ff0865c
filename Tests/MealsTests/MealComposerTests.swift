import FoodData
import Testing

@testable import MealsService

@Suite("Composing scored items into a meal")
struct MealComposerTests {
    private func breakfast() throws -> [MealItemDraft] {
        [
            .fromTable(try FoodTable.food("01123"), name: "eggs", amount: 2, unit: "large", grams: 100, confidence: 0.9),
            .fromTable(try FoodTable.food("18075"), name: "toast", amount: 1, unit: "slice", grams: 28, confidence: 0.8),
            .fromTable(try FoodTable.food("09206"), name: "orange juice", amount: 200, unit: "ml", grams: 209.6, confidence: 0.9),
            MealItemDraft(
                name: "jam", amount: 20, unit: "g", grams: 20, food: nil,
                nutrients: NutrientProfile(calories: 50, protein: 0, carbs: 13, fat: 0, fiber: 0, sugars: 12, saturatedFat: 0, sodium: 5),
                confidence: 1, source: .manual),
        ]
    }

    @Test("totals are the sum of the items")
    func totals() throws {
        let drafts = try breakfast()
        let meal = MealComposer.compose(drafts, profile: .standard)
        let sum = drafts.reduce(NutrientProfile.zero) { $0 + $1.nutrients }
        // Egg 143 + toast 69.16 + juice 94.32 + jam 50.
        #expect(abs(sum.calories - (143 + 247 * 0.28 + 45 * 2.096 + 50)) < 0.01)
        #expect(abs(meal.totals.calories - sum.calories) <= 0.5)
        #expect(abs(meal.totals.protein - sum.protein) <= 0.05)
        #expect(abs(meal.totals.carbs - sum.carbs) <= 0.05)
        #expect(abs(meal.totals.fat - sum.fat) <= 0.05)
        #expect(abs(meal.totals.sugars - sum.sugars) <= 0.05)
        #expect(abs(meal.totals.sodium - sum.sodium) <= 0.5)
        let itemCalories = meal.items.reduce(0) { $0 + $1.calories }
        #expect(abs(meal.totals.calories - itemCalories) <= 2)
        #expect(meal.items.map { $0.grams } == [100, 28, 209.6, 20])
        #expect(meal.items.map { $0.foodId } == ["01123", "18075", "09206", nil])
    }

    @Test(
        "the title names the first foods",
        arguments: [
            ([String](), "Meal"), (["eggs"], "Eggs"), (["eggs", "toast"], "Eggs and toast"),
            (["eggs", "toast", "juice"], "Eggs, toast and juice"), (["eggs", "toast", "juice", "jam"], "Eggs, toast and 2 more"),
            ([" ", "eggs"], "Eggs"),
        ])
    func title(names: [String], expected: String) {
        #expect(MealComposer.title(for: names) == expected)
    }

    @Test("a composed meal is titled after its items unless a title is given")
    func composedTitle() throws {
        let drafts = try breakfast()
        #expect(MealComposer.compose(drafts, profile: .standard).title == "Eggs, toast and 2 more")
        #expect(MealComposer.compose(Array(drafts.prefix(2)), profile: .standard).title == "Eggs and toast")
        #expect(MealComposer.compose(drafts, profile: .standard, title: "Sunday brunch").title == "Sunday brunch")
    }

    @Test("the meal has a health score and every item a reason naming it")
    func healthAndReasons() throws {
        let meal = MealComposer.compose(try breakfast(), profile: .standard)
        let health = try #require(meal.health)
        #expect((0...100).contains(health.score))
        #expect(meal.items.count == 4)
        for item in meal.items {
            #expect(item.reason.lowercased().contains(item.name.lowercased()), "\(item.name): \(item.reason)")
            #expect(!item.encouragement.isEmpty, "\(item.name)")
        }
    }

    @Test("an empty meal has no health score and zero totals")
    func emptyMeal() {
        let meal = MealComposer.compose([], profile: .standard)
        #expect(meal.health == nil)
        #expect(meal.totals == .zero)
        #expect(meal.title == "Meal")
    }
}
