import FoodData
import Testing

@testable import MealsService

@Suite("Analysing a written meal with the USDA table")
struct TextMealAnalyzerTests {
    private let analyzer = TextMealAnalyzer(catalog: FoodTable.catalog)

    /// Grams of one `measure` (its name's first word) of `food`.
    private func measureGrams(_ food: FoodRecord, _ word: String) -> Double? {
        food.measures.first { FoodNameTokenizer.words($0.name).first == word }?.gramsPerUnit
    }

    @Test("the issue's example gives eggs, whole-wheat toast and orange juice")
    func issueExample() throws {
        let result = analyzer.analyze("2 eggs, a slice of whole wheat toast and 200 ml orange juice")
        #expect(result.unrecognised.isEmpty)
        #expect(result.drafts.count == 3)
        let eggs = try #require(result.drafts.first { $0.name == "eggs" })
        let egg = try #require(eggs.food)
        #expect(egg.name.hasPrefix("Egg, whole"), "eggs → \(egg.name)")
        let oneEgg = try #require(measureGrams(egg, "medium") ?? measureGrams(egg, "large"), "\(egg.name) has no egg-sized measure")
        #expect(abs(eggs.grams - 2 * oneEgg) < 0.01, "2 eggs → \(eggs.grams) g")
        #expect(eggs.amount == 2)

        let toast = try #require(result.drafts.first { $0.name == "whole wheat toast" })
        let bread = try #require(toast.food)
        #expect(bread.name.hasPrefix("Bread, whole-wheat"), "toast → \(bread.name)")
        let slice = try #require(measureGrams(bread, "slice"))
        #expect(abs(toast.grams - slice) < 0.01, "a slice → \(toast.grams) g")
        #expect(toast.unit == "slice")

        let juice = try #require(result.drafts.first { $0.name == "orange juice" })
        let orange = try #require(juice.food)
        #expect(orange.name.hasPrefix("Orange juice"), "juice → \(orange.name)")
        #expect(juice.grams >= 200 && juice.grams <= 210, "200 ml → \(juice.grams) g")
        let cup = try #require(measureGrams(orange, "cup"))
        #expect(abs(juice.grams - 200 * cup / 236.6) < 0.01)
        #expect(juice.unit == "ml")

        for draft in result.drafts {
            let food = try #require(draft.food)
            #expect(draft.source == .database)
            #expect(abs(draft.nutrients.calories - food.per100g.calories * draft.grams / 100) < 0.001, "\(draft.name)")
            #expect(abs(draft.nutrients.protein - food.per100g.protein * draft.grams / 100) < 0.001, "\(draft.name)")
        }
    }

    @Test("two large eggs weigh two of the table's large eggs")
    func twoLargeEggs() throws {
        let result = analyzer.analyze("2 large eggs")
        let eggs = try #require(result.drafts.first)
        let egg = try #require(eggs.food)
        #expect(egg.name.hasPrefix("Egg, whole"), "eggs → \(egg.name)")
        let large = try #require(measureGrams(egg, "large"))
        #expect(abs(eggs.grams - 2 * large) < 0.01, "2 large eggs → \(eggs.grams) g")
        #expect(eggs.unit == "large")
    }

    @Test("grams written are used exactly")
    func exactGrams() throws {
        let result = analyzer.analyze("100 g chicken breast")
        let chicken = try #require(result.drafts.first)
        #expect(result.drafts.count == 1)
        #expect(chicken.grams == 100)
        #expect(chicken.unit == "g")
        let food = try #require(chicken.food)
        #expect(food.name.contains("Chicken"), "chicken breast → \(food.name)")
        #expect(abs(chicken.nutrients.calories - food.per100g.calories) < 0.001)
    }

    @Test("a phrase naming no food is reported apart and adds nothing")
    func unknownPhrase() {
        let result = analyzer.analyze("3 zxqv")
        #expect(result.drafts.isEmpty)
        #expect(result.unrecognised == ["zxqv"])

        let mixed = analyzer.analyze("100 g rice, 3 zxqv")
        #expect(mixed.drafts.count == 1)
        #expect(mixed.drafts.first?.grams == 100)
        #expect(mixed.unrecognised == ["zxqv"])
    }

    @Test("a food with no quantity is one of its household measures, not 100 g", arguments: ["an apple", "apple"])
    func bareFood(text: String) throws {
        let result = analyzer.analyze(text)
        let apple = try #require(result.drafts.first)
        let food = try #require(apple.food)
        #expect(food.name.hasPrefix("Apples"), "\(text) → \(food.name)")
        #expect(!food.measures.isEmpty)
        #expect(food.measures.contains { abs($0.gramsPerUnit - apple.grams) < 0.01 }, "\(text) → \(apple.grams) g")
        #expect(apple.grams != 100)
        #expect(apple.unit != "serving (100 g)")
    }

    @Test("an unwritten quantity is less certain than a written one")
    func confidence() throws {
        let written = try #require(analyzer.analyze("150 g apple").drafts.first)
        let unwritten = try #require(analyzer.analyze("apple").drafts.first)
        #expect(written.confidence > unwritten.confidence)
        #expect(written.confidence <= 1 && unwritten.confidence > 0)
    }

    @Test("empty text gives nothing")
    func emptyText() {
        let result = analyzer.analyze("")
        #expect(result.drafts.isEmpty)
        #expect(result.unrecognised.isEmpty)
    }
}
