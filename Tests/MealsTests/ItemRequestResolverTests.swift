import FoodData
import Foundation
import ServiceDefaults
import Testing

@testable import MealsService

@Suite("Validating client-written meal items")
struct ItemRequestResolverTests {
    let caller = UUID()

    private func resolve(_ requests: [ItemRequest]) throws -> [MealItemDraft] {
        try ItemRequestResolver.resolve(requests, foods: ItemFoods(catalog: FoodTable.catalog, products: TestProducts.all), caller: caller)
    }

    /// The 422 the requests are refused with; fails the test when they are accepted or refused otherwise.
    private func refusal(_ requests: [ItemRequest], sourceLocation: SourceLocation = #_sourceLocation) throws -> APIError {
        let error = try #require(throws: APIError.self, sourceLocation: sourceLocation) { try resolve(requests) }
        #expect(error.status == .unprocessableContent, sourceLocation: sourceLocation)
        #expect(error.code == "validation_failed", sourceLocation: sourceLocation)
        return error
    }

    @Test("a table food with grams takes the table's values")
    func foodIdWithGrams() throws {
        let drafts = try resolve([ItemRequest(foodId: "01123", grams: 150)])
        let draft = try #require(drafts.first)
        #expect(draft.grams == 150)
        #expect(draft.unit == "g")
        #expect(draft.source == .database)
        #expect(draft.food?.id == "01123")
        #expect(draft.name == "Egg, whole, raw, fresh")
        #expect(abs(draft.nutrients.calories - 143 * 1.5) < 0.001)
    }

    @Test("a table food with a quantity and a household unit")
    func foodIdWithQuantityAndUnit() throws {
        let drafts = try resolve([
            ItemRequest(foodId: "01123", name: "eggs", quantity: 2, unit: "large"),
            ItemRequest(foodId: "01077", quantity: 1, unit: "cup"),
            ItemRequest(foodId: "01077", quantity: 2, unit: "cups"),
        ])
        #expect(drafts.count == 3)
        guard drafts.count == 3 else { return }
        #expect(drafts[0].grams == 100)
        #expect(drafts[0].unit == "large")
        #expect(drafts[0].name == "eggs")
        #expect(drafts[1].grams == 244)
        #expect(drafts[1].unit == "cup")
        #expect(drafts[2].grams == 488)
    }

    @Test("a unit the food has no measure for is refused")
    func unknownUnit() throws {
        let error = try refusal([ItemRequest(foodId: "01123", quantity: 1, unit: "zxqv")])
        #expect(error.details["items[0].unit"] != nil)
    }

    @Test("an unknown food id is refused, naming the field")
    func unknownFoodId() throws {
        let error = try refusal([ItemRequest(foodId: "01123", grams: 50), ItemRequest(foodId: "99999", grams: 100)])
        #expect(error.details.keys.sorted() == ["items[1].foodId"])
    }

    @Test("a food id with its own values is refused")
    func foodIdWithValues() throws {
        let error = try refusal([ItemRequest(foodId: "01123", grams: 100, calories: 300)])
        #expect(error.details["items[0].calories"] != nil)
    }

    @Test("free values make a manual item")
    func manualItem() throws {
        let drafts = try resolve([
            ItemRequest(name: "  Grandma's stew ", grams: 350, calories: 420, protein: 30, carbs: 35, fat: 15, fiber: 6, sodium: 800)
        ])
        let draft = try #require(drafts.first)
        #expect(draft.source == .manual)
        #expect(draft.food == nil)
        #expect(draft.name == "Grandma's stew")
        #expect(draft.grams == 350)
        #expect(draft.nutrients.calories == 420)
        #expect(draft.nutrients.protein == 30)
        #expect(draft.nutrients.fiber == 6)
        #expect(draft.nutrients.sodium == 800)
        #expect(draft.nutrients.sugars == 0)
        #expect(draft.flags.isEmpty)
    }

    @Test("a manual item without name, grams or calories is refused, naming each")
    func manualItemMissingValues() throws {
        let error = try refusal([ItemRequest(protein: 10)])
        #expect(Set(error.details.keys) == ["items[0].name", "items[0].grams", "items[0].calories"])
    }

    @Test("negative, non-finite and too-large values are all reported at once")
    func invalidValues() throws {
        let error = try refusal([
            ItemRequest(name: "soup", grams: -5, calories: .nan, protein: -1, carbs: .infinity),
            ItemRequest(name: "cake", grams: 6000, calories: 20000, fat: 10),
            ItemRequest(foodId: "01123", quantity: 0),
            ItemRequest(name: "", grams: 100, calories: 100),
            ItemRequest(name: "crumb", grams: 5e-324, calories: 0),
        ])
        let expected: Set<String> = [
            "items[0].grams", "items[0].calories", "items[0].protein", "items[0].carbs",
            "items[1].grams", "items[1].calories",
            "items[2].quantity",
            "items[3].name",
            "items[4].grams",
        ]
        #expect(Set(error.details.keys) == expected)
    }

    @Test("fibre, sugars and saturated fat heavier than the item, and absurd sodium, are refused (totals stay finite)")
    func minorNutrientBounds() throws {
        let error = try refusal([
            ItemRequest(name: "salt lick", grams: 100, calories: 10, fiber: 101.5, sugars: 200, saturatedFat: 1e308, sodium: 1e308)
        ])
        #expect(Set(error.details.keys) == ["items[0].fiber", "items[0].sugars", "items[0].saturatedFat", "items[0].sodium"])
        let fine = try resolve([ItemRequest(name: "broth", grams: 300, calories: 40, fiber: 1, sugars: 2, saturatedFat: 0.5, sodium: 900)])
        #expect(fine.first?.nutrients.sodium == 900)
    }

    @Test("a portion heavier than 5 kg from a quantity is refused")
    func hugeQuantity() throws {
        let error = try refusal([ItemRequest(foodId: "01077", quantity: 100, unit: "cup")])
        #expect(error.details["items[0].quantity"] != nil)
    }

    @Test("more than 50 items are refused; 50 are fine")
    func itemCount() throws {
        let item = ItemRequest(name: "grape", grams: 5, calories: 3)
        let fifty = try resolve(Array(repeating: item, count: 50))
        #expect(fifty.count == 50)
        let error = try refusal(Array(repeating: item, count: 51))
        #expect(error.details["items"] != nil)
        let none = try refusal([])
        #expect(none.details["items"] != nil)
    }

    @Test("macros heavier than the item are refused")
    func macrosHeavierThanItem() throws {
        let error = try refusal([ItemRequest(name: "bar", grams: 50, calories: 400, protein: 30, carbs: 30, fat: 10)])
        #expect(error.details["items[0].protein"] != nil)
    }

    @Test("calories far from the macros are accepted but flagged")
    func inconsistentCalories() throws {
        let drafts = try resolve([
            ItemRequest(name: "shake", grams: 300, calories: 50, protein: 30, carbs: 20, fat: 10),
            ItemRequest(name: "rice", grams: 200, calories: 260, protein: 5, carbs: 57, fat: 0.5),
        ])
        #expect(drafts.count == 2)
        #expect(drafts.first?.flags == ["calories_inconsistent_with_macros"])
        #expect(drafts.last?.flags == [])
        let composed = MealComposer.compose(drafts, profile: .standard)
        #expect(composed.items.first?.flags == ["calories_inconsistent_with_macros"])
    }

    @Test("a product by grams or servings takes its label's values; one serving when neither is given")
    func productPortions() throws {
        let drafts = try resolve([
            ItemRequest(productId: TestProducts.yoghurtId, grams: 200), ItemRequest(productId: TestProducts.yoghurtId, servings: 2),
            ItemRequest(productId: TestProducts.yoghurtId), ItemRequest(productId: TestProducts.drinkId, name: "Can of lemonade"),
        ])
        #expect(drafts.map(\.grams) == [200, 300, 150, 330])
        #expect(drafts.map(\.unit) == ["g", "serving", "serving", "serving"] && drafts[3].name == "Can of lemonade")
        #expect(drafts[0].nutrients.calories == 120 && drafts[1].nutrients.protein == 30 && drafts.allSatisfy { $0.source == .product })
        let composed = MealComposer.compose(drafts, profile: .standard)
        #expect(composed.items.allSatisfy { $0.productId != nil && $0.foodId == nil })
        #expect(composed.items.first?.productId == TestProducts.yoghurtId)
    }

    @Test("a product's label decides its traits: NOVA, allergens, vegan and vegetarian flags; Nutri-Score joins the processing points")
    func productTraits() throws {
        let yoghurt = TestProducts.yoghurt.traits
        #expect(yoghurt.isDairy && yoghurt.isAnimal && !yoghurt.isMeat && yoghurt.processing == .unprocessed)
        let spread = TestProducts.incomplete.traits
        #expect(!spread.isAnimal && spread.processing == .ultraProcessed)
        let item = ScorableItem(name: "Lemonade", grams: 330, nutrients: .zero, traits: TestProducts.drink.traits, nutriScore: "e")
        #expect(item.processingPoints == (ProcessingLevel.ultraProcessed.healthPoints + 10 + 1) / 2)
        #expect(ScorableItem(name: "x", grams: 1, nutrients: .zero, traits: yoghurt).processingPoints == ProcessingLevel.unprocessed.healthPoints)
    }

    @Test("a product without energy or a macro on its label counts them as 0 and is flagged; without a serving size it needs grams")
    func incompleteProduct() throws {
        let drafts = try resolve([ItemRequest(productId: TestProducts.incompleteId, grams: 30)])
        #expect(drafts.first?.nutrients.calories == 186 && drafts.first?.nutrients.protein == 0)
        #expect(drafts.first?.flags == ["nutrients_incomplete"])
        let noServing = try refusal([ItemRequest(productId: TestProducts.incompleteId, servings: 1)])
        #expect(noServing.details["items[0].grams"] != nil)
    }

    @Test(
        "product items are refused when unknown, held for others who never logged them, mixed with values, a foodId or a quantity, or given grams and servings"
    )
    func productRefusals() throws {
        let unknown = try refusal([ItemRequest(productId: UUID(), grams: 10)])
        #expect(unknown.details["items[0].productId"] != nil)
        let held = try refusal([ItemRequest(productId: TestProducts.heldId, servings: 1)])
        #expect(held.details["items[0].productId"] != nil, "held back after reports, and the caller is not its author")
        let authorsOwn = try ItemRequestResolver.resolve(
            [ItemRequest(productId: TestProducts.heldId, servings: 1)],
            foods: ItemFoods(catalog: FoodTable.catalog, products: TestProducts.all), caller: TestProducts.author)
        #expect(authorsOwn.first?.grams == 40)
        let loggedBefore = try ItemRequestResolver.resolve(
            [ItemRequest(productId: TestProducts.heldId, servings: 1)],
            foods: ItemFoods(catalog: FoodTable.catalog, products: TestProducts.all, loggedBefore: [TestProducts.heldId]), caller: UUID())
        #expect(loggedBefore.first?.grams == 40, "held after reports, it stays loggable for a user who logged it before")
        let mixed = try refusal([
            ItemRequest(productId: TestProducts.yoghurtId, grams: 10, calories: 5), ItemRequest(foodId: "09040", productId: TestProducts.yoghurtId),
            ItemRequest(productId: TestProducts.yoghurtId, servings: 1, grams: 100), ItemRequest(productId: TestProducts.yoghurtId, servings: 0),
            ItemRequest(foodId: "09040", servings: 1), ItemRequest(productId: TestProducts.yoghurtId, quantity: 2, unit: "cup"),
        ])
        #expect(mixed.details["items[0].calories"] != nil && mixed.details["items[1].foodId"] != nil)
        #expect(mixed.details["items[2].servings"] != nil && mixed.details["items[3].servings"] != nil && mixed.details["items[4].servings"] != nil)
        #expect(mixed.details["items[5].quantity"] != nil && mixed.details["items[5].unit"] != nil, "a product is not measured in a unit")
    }
}
