import Testing

@testable import MealsService

@Suite("Weighing a written portion of a table food")
struct PortionResolverTests {
    private func resolve(_ quantity: Double, _ unit: PortionUnit?, _ phrase: String, food id: String) throws -> PortionResolver.Resolution {
        let portion = ParsedPortion(quantity: quantity, unit: unit, foodPhrase: phrase, quantityWritten: true)
        return PortionResolver.resolve(portion, food: try FoodTable.food(id))
    }

    @Test("mass units convert exactly")
    func massUnits() throws {
        let grams = try resolve(150, .mass(name: "g", gramsPerUnit: 1), "chicken", food: "05064")
        #expect(grams.grams == 150)
        #expect(grams.unit == "g")
        let ounces = try resolve(2, .mass(name: "oz", gramsPerUnit: 28.3495), "chicken", food: "05064")
        #expect(abs(ounces.grams - 56.699) < 0.001)
        let kilo = try resolve(0.5, .mass(name: "kg", gramsPerUnit: 1000), "rice", food: "20045")
        #expect(kilo.grams == 500)
        let pound = try resolve(1, .mass(name: "lb", gramsPerUnit: 453.592), "chicken", food: "05064")
        #expect(abs(pound.grams - 453.592) < 0.001)
    }

    @Test("a volume uses the food's density from its cup measure")
    func volumeWithDensity() throws {
        // Whole milk: a cup weighs 244 g, so 200 ml weigh 200 × 244 / 236.6 g.
        let milk = try resolve(200, .volume(name: "ml", millilitresPerUnit: 1), "milk", food: "01077")
        #expect(abs(milk.grams - 200 * 244 / 236.6) < 0.01, "200 ml milk → \(milk.grams) g")
        #expect(milk.unit == "ml")
        let litre = try resolve(1, .volume(name: "l", millilitresPerUnit: 1000), "milk", food: "01077")
        #expect(litre.grams > 1030 && litre.grams < 1032)
    }

    @Test("a household word the food has uses that measure")
    func ownHouseholdMeasure() throws {
        let slices = try resolve(2, .household(word: "slice", millilitres: nil), "bread", food: "18075")
        #expect(slices.grams == 56)
        #expect(slices.unit == "slice")
        let eggs = try resolve(2, .household(word: "large", millilitres: nil), "eggs", food: "01123")
        #expect(eggs.grams == 100)
        let milk = try resolve(1, .household(word: "cup", millilitres: 236.6), "milk", food: "01077")
        #expect(milk.grams == 244)
    }

    @Test("a spoon or cup the food lacks falls back to the standard volume")
    func standardVolumeFallback() throws {
        // Orange juice lists a cup (248 g) but no tablespoon.
        let juice = try resolve(2, .household(word: "tbsp", millilitres: 14.79), "orange juice", food: "09206")
        #expect(abs(juice.grams - 2 * 14.79 * 248 / 236.6) < 0.01, "2 tbsp juice → \(juice.grams) g")
        #expect(juice.unit == "tbsp")
        // Bread lists neither a cup nor fl oz: water's density.
        let bread = try resolve(1, .household(word: "cup", millilitres: 236.6), "bread", food: "18075")
        #expect(abs(bread.grams - 236.6) < 0.01)
        let teaspoon = try resolve(1, .household(word: "tsp", millilitres: 4.93), "milk", food: "01077")
        #expect(abs(teaspoon.grams - 4.93 * 244 / 236.6) < 0.01)
    }

    @Test("a bare count uses the food's usual unit")
    func bareCount() throws {
        let eggs = try resolve(2, nil, "eggs", food: "01123")
        #expect(eggs.grams == 88, "2 eggs → \(eggs.grams) g (2 medium)")
        #expect(eggs.unit == "medium")
        let apple = try resolve(1, nil, "apple", food: "09003")
        #expect(apple.grams == 182)
    }

    @Test("a count picks the measure named after a word of the phrase")
    func countNamedMeasure() throws {
        // Roast chicken breast: "breast, bone and skin removed" is 0.5 × 86 g, so one breast is 172 g.
        let breast = try resolve(1, nil, "chicken breast", food: "05064")
        #expect(breast.grams == 172, "a chicken breast → \(breast.grams) g via \(breast.unit)")
        // With only the measure's own word in the phrase, the right measure is found.
        let breastOnly = try resolve(1, nil, "breast", food: "05064")
        #expect(breastOnly.grams == 172)
        #expect(breastOnly.unit.hasPrefix("breast"))
    }

    @Test("a unit word the food has no measure for counts its usual unit")
    func unknownHouseholdWord() throws {
        let eggs = try resolve(2, .household(word: "piece", millilitres: nil), "eggs", food: "01123")
        #expect(eggs.grams == 88)
        #expect(eggs.unit == "piece")
    }

    @Test("guessed portions are less certain than weighed ones")
    func certainty() throws {
        let weighed = try resolve(100, .mass(name: "g", gramsPerUnit: 1), "milk", food: "01077").certainty
        let poured = try resolve(100, .volume(name: "ml", millilitresPerUnit: 1), "milk", food: "01077").certainty
        let measured = try resolve(1, .household(word: "cup", millilitres: 236.6), "milk", food: "01077").certainty
        let spooned = try resolve(1, .household(word: "tbsp", millilitres: 14.79), "juice", food: "09206").certainty
        let counted = try resolve(2, nil, "eggs", food: "01123").certainty
        let unwritten = PortionResolver.resolve(
            ParsedPortion(quantity: 1, unit: nil, foodPhrase: "eggs", quantityWritten: false), food: try FoodTable.food("01123")
        ).certainty
        #expect(weighed == 1)
        #expect(poured < weighed)
        #expect(measured < weighed)
        #expect(spooned < measured)
        #expect(counted < weighed)
        #expect(unwritten < counted)
    }

    @Test("a food without any measure is one 100 g serving with low certainty")
    func noMeasures() throws {
        var food = try FoodTable.food("01123")
        food.measures = []
        let portion = ParsedPortion(quantity: 2, unit: nil, foodPhrase: "eggs", quantityWritten: true)
        let resolution = PortionResolver.resolve(portion, food: food)
        #expect(resolution.grams == 200)
        #expect(resolution.unit == "serving (100 g)")
        #expect(resolution.certainty < 0.5)
    }
}
