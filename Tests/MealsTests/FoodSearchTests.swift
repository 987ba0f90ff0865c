import Testing

@testable import MealsService

@Suite("Food search over the USDA table")
struct FoodSearchTests {
    private func topNames(_ query: String, _ count: Int = 3) -> [String] {
        FoodTable.catalog.search(query, limit: count).map(\.food.name)
    }

    @Test("the whole table is loaded with its measures")
    func tableIsComplete() throws {
        #expect(FoodTable.catalog.foods.count > 8700)
        let egg = try FoodTable.food("01123")
        #expect(egg.name == "Egg, whole, raw, fresh")
        #expect(egg.measures.contains { $0.name == "large" && $0.grams == 50 })
        #expect(egg.per100g.calories == 143)
    }

    @Test("plural, singular and a typo find the same food", arguments: ["egg", "eggs", "egs", "eegs"])
    func pluralsAndTypos(query: String) {
        let top = topNames(query, 1).first ?? ""
        #expect(top.hasPrefix("Egg, whole"), "\(query) → \(top)")
    }

    @Test("typos in longer words are forgiven")
    func longWordTypos() {
        let top = topNames("brocolli", 1).first ?? ""
        #expect(top.hasPrefix("Broccoli"), "brocolli → \(top)")
        let banana = topNames("bananna", 1).first ?? ""
        #expect(banana.hasPrefix("Bananas"), "bananna → \(banana)")
    }

    @Test("generic foods rank before branded and baby foods")
    func genericFirst() {
        let top = topNames("orange juice", 1).first ?? ""
        #expect(top.hasPrefix("Orange juice"), "orange juice → \(top)")
        let apple = topNames("apples", 1).first ?? ""
        #expect(apple.hasPrefix("Apples, raw"), "apples → \(apple)")
    }

    @Test("a query that matches nothing returns nothing")
    func noMatch() {
        #expect(FoodTable.catalog.search("xqzvwk", limit: 5).isEmpty)
        #expect(FoodTable.catalog.search("", limit: 5).isEmpty)
    }

    @Test("everyday words find the everyday food, not a rarer one with the same word")
    func everydayFoods() {
        let expected = [
            "milk": "Milk, whole", "almonds": "Nuts, almonds", "bacon": "Pork, cured, bacon", "white rice": "Rice, white",
            "eggs": "Egg, whole, raw", "toast": "Bread, white, commercially prepared, toasted",
        ]
        for (query, prefix) in expected {
            let top = topNames(query, 1).first ?? ""
            #expect(top.hasPrefix(prefix), "\(query) → \(top)")
        }
    }

    @Test("a preserved state the query did not ask for ranks below the fresh food")
    func freshBeforePreserved() {
        let eggs = topNames("egg whole", 1).first ?? ""
        #expect(!eggs.contains("dried"), "egg whole → \(eggs)")
        let dried = topNames("dried egg", 1).first ?? ""
        #expect(dried.contains("dried"), "dried egg → \(dried)")
    }
}
