import Testing

@testable import MealsService

@Suite("Reading a written meal into portions")
struct TextMealParserTests {
    /// A parser whose table knows "mac and cheese" as one food and nothing else.
    private let parser = TextMealParser { phrase in phrase == "mac and cheese" }

    private func portions(_ text: String) -> [ParsedPortion] {
        parser.parse(text)
    }

    private func names(_ text: String) -> [String] {
        parser.parse(text).map { $0.foodPhrase }
    }

    private func only(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ParsedPortion {
        let parsed = portions(text)
        #expect(parsed.count == 1, "\(text) → \(parsed)", sourceLocation: sourceLocation)
        return try #require(parsed.first, sourceLocation: sourceLocation)
    }

    @Test("the issue's example reads as two eggs, a slice of toast and 200 ml of juice")
    func issueExample() {
        let parsed = portions("2 eggs, a slice of whole wheat toast and 200 ml orange juice")
        #expect(parsed.map { $0.foodPhrase } == ["eggs", "whole wheat toast", "orange juice"])
        guard parsed.count == 3 else { return }
        #expect(parsed[0].quantity == 2)
        #expect(parsed[0].unit == nil)
        #expect(parsed[1].quantity == 1)
        #expect(parsed[1].unit == .household(word: "slice", millilitres: nil))
        #expect(parsed[1].quantityWritten)
        #expect(parsed[2].quantity == 200)
        #expect(parsed[2].unit == .volume(name: "ml", millilitresPerUnit: 1))
    }

    @Test(
        "a count of a food whose name is also a unit word keeps the food",
        arguments: [("2 eggs", 2.0, "eggs"), ("a couple of eggs", 2, "eggs"), ("3 muffins", 3, "muffins"), ("a bagel", 1, "bagel")])
    func countOfUnitWordFood(text: String, quantity: Double, phrase: String) throws {
        let portion = try only(text)
        #expect(portion.quantity == quantity, "\(text)")
        #expect(portion.unit == nil, "\(text)")
        #expect(portion.foodPhrase == phrase, "\(text)")
    }

    @Test("a unit word followed by more words is still a unit")
    func unitWordThenFood() throws {
        let portion = try only("2 large eggs")
        #expect(portion.unit == .household(word: "large", millilitres: nil))
        #expect(portion.foodPhrase == "eggs")
    }

    @Test(
        "fractions, mixed numbers and vulgar fractions",
        arguments: [
            ("1/2 cup of rice", 0.5, "rice"), ("1 1/2 cups milk", 1.5, "milk"), ("½ avocado", 0.5, "avocado"),
            ("1½ cups milk", 1.5, "milk"), ("0.75 cup oats", 0.75, "oats"), ("2-3 bananas", 2.5, "bananas"),
        ])
    func fractions(text: String, quantity: Double, phrase: String) throws {
        let portion = try only(text)
        #expect(portion.quantity == quantity, "\(text)")
        #expect(portion.foodPhrase == phrase, "\(text)")
    }

    @Test(
        "number words",
        arguments: [
            ("two bananas", 2.0, "bananas"), ("a couple of apples", 2, "apples"), ("half a cup of oats", 0.5, "oats"),
            ("a dozen almonds", 12, "almonds"), ("three apples", 3, "apples"), ("an apple", 1, "apple"),
            ("a few strawberries", 3, "strawberries"),
        ])
    func numberWords(text: String, quantity: Double, phrase: String) throws {
        let portion = try only(text)
        #expect(portion.quantity == quantity, "\(text)")
        #expect(portion.foodPhrase == phrase, "\(text)")
        #expect(portion.quantityWritten)
    }

    @Test("half a cup keeps its unit")
    func halfACup() throws {
        let portion = try only("half a cup of oats")
        #expect(portion.unit == .household(word: "cup", millilitres: 236.6))
    }

    @Test(
        "mass, volume and household units",
        arguments: [
            ("150 g rice", PortionUnit.mass(name: "g", gramsPerUnit: 1), "rice"),
            ("150 grams rice", .mass(name: "g", gramsPerUnit: 1), "rice"),
            ("1 kg potatoes", .mass(name: "kg", gramsPerUnit: 1000), "potatoes"),
            ("8 oz steak", .mass(name: "oz", gramsPerUnit: 28.3495), "steak"),
            ("1 lb ground beef", .mass(name: "lb", gramsPerUnit: 453.592), "ground beef"),
            ("250 ml milk", .volume(name: "ml", millilitresPerUnit: 1), "milk"),
            ("1 l water", .volume(name: "l", millilitresPerUnit: 1000), "water"),
            ("2 cups of pasta", .household(word: "cup", millilitres: 236.6), "pasta"),
            ("2 tbsp peanut butter", .household(word: "tbsp", millilitres: 14.79), "peanut butter"),
            ("1 tablespoon olive oil", .household(word: "tbsp", millilitres: 14.79), "olive oil"),
            ("1 tsp sugar", .household(word: "tsp", millilitres: 4.93), "sugar"),
            ("3 slices of bread", .household(word: "slice", millilitres: nil), "bread"),
            ("8 fl oz orange juice", .volume(name: "fl oz", millilitresPerUnit: 29.5735), "orange juice"),
        ])
    func units(text: String, unit: PortionUnit, phrase: String) throws {
        let portion = try only(text)
        #expect(portion.unit == unit, "\(text)")
        #expect(portion.foodPhrase == phrase, "\(text)")
    }

    @Test("a unit attached to the number is split off", arguments: ["200g chicken breast", "200G Chicken Breast", "200 g chicken breast"])
    func attachedUnit(text: String) throws {
        let portion = try only(text)
        #expect(portion.quantity == 200)
        #expect(portion.unit == .mass(name: "g", gramsPerUnit: 1))
        #expect(portion.foodPhrase == "chicken breast")
    }

    @Test("a quantity written after the food", arguments: [
        ("orange juice 200 ml", 200.0, PortionUnit.volume(name: "ml", millilitresPerUnit: 1), "orange juice"),
        ("chicken breast (150 g)", 150, .mass(name: "g", gramsPerUnit: 1), "chicken breast"),
        ("rice 1.5 cups", 1.5, .household(word: "cup", millilitres: 236.6), "rice"),
    ])
    func trailingQuantity(text: String, quantity: Double, unit: PortionUnit, phrase: String) throws {
        let portion = try only(text)
        #expect(portion.quantity == quantity, "\(text)")
        #expect(portion.unit == unit, "\(text)")
        #expect(portion.foodPhrase == phrase, "\(text)")
        #expect(portion.quantityWritten)
    }

    @Test("a food with no quantity is one usual portion, marked as unwritten")
    func noQuantity() throws {
        let portion = try only("orange juice")
        #expect(portion.quantity == 1)
        #expect(portion.unit == nil)
        #expect(!portion.quantityWritten)
    }

    @Test("every separator splits foods")
    func separators() {
        let text = "rice, beans; toast\nbanana plus apple + coffee & tea and yogurt with honey"
        #expect(portions(text).map { $0.foodPhrase } == ["rice", "beans", "toast", "banana", "apple", "coffee", "tea", "yogurt", "honey"])
    }

    @Test("\"and\" joins the words of one food but separates two")
    func andRule() {
        #expect(names("mac and cheese") == ["mac and cheese"])
        #expect(portions("eggs and toast").map { $0.foodPhrase } == ["eggs", "toast"])
        #expect(portions("mac and cheese, 2 apples").map { $0.foodPhrase } == ["mac and cheese", "apples"])
        // A quantity after "and" always starts a new food, even when the whole would name one.
        #expect(portions("mac and 2 cheese").map { $0.foodPhrase } == ["mac", "cheese"])
    }

    @Test("a quantity applies to its own food only")
    func quantitiesStayWithTheirFood() {
        let parsed = portions("3 apples and 2 bananas with 100 g yogurt")
        #expect(parsed.map { $0.foodPhrase } == ["apples", "bananas", "yogurt"])
        #expect(parsed.map { $0.quantity } == [3, 2, 100])
    }

    @Test("empty, blank and meaningless text gives no portions", arguments: ["", "   ", ",,, ;; \n\n", "!!!???", "3", "a", "of of", "1/2"])
    func nothing(text: String) {
        #expect(portions(text).isEmpty, "\(text.debugDescription) → \(portions(text))")
    }

    @Test("very long input is read without crashing")
    func longInput() {
        let repeated = String(repeating: "1 apple and toast, ", count: 110)
        #expect(repeated.count > 2000)
        let parsed = portions(repeated)
        #expect(parsed.count == 220)
        #expect(parsed.allSatisfy { $0.foodPhrase == "apple" || $0.foodPhrase == "toast" })

        let oneWord = String(repeating: "x", count: 2500)
        #expect(portions(oneWord).map { $0.foodPhrase } == [oneWord])

        let chain = Array(repeating: "rice", count: 500).joined(separator: " and ")
        #expect(portions(chain).count == 500)
    }
}
