import Testing

@testable import FoodData

/// The checks every label passes, typed in or read from a photo.
@Suite("Label nutrients")
struct LabelNutrientsTests {
    static let oats = LabelNutrients(calories: 389, protein: 16.9, carbs: 66.3, fat: 6.9, fiber: 10.6, sugars: 1, saturatedFat: 1.2, salt: 0.02)

    @Test("a real label has no problems; salt stands for sodium; missing values are named")
    func plausible() {
        #expect(Self.oats.problems(maxGrams: LabelNutrients.maxGramsIn100g, requireCore: true).isEmpty)
        #expect(Self.oats.sodiumOrFromSalt == 8 && Self.oats.missing.isEmpty)
        #expect(LabelNutrients(calories: 40).missing == ["protein", "carbs", "fat", "fiber", "sugars", "saturatedFat", "sodium"])
    }

    @Test("each rule names its nutrient: ranges, parts within their whole, salt against sodium, the macros' weight and energy")
    func rules() {
        func problems(_ change: (inout LabelNutrients) -> Void, maxGrams: Double = 100) -> Set<String> {
            var label = Self.oats
            change(&label)
            return Set(label.problems(maxGrams: maxGrams, requireCore: true).keys)
        }
        #expect(problems { $0.calories = nil } == ["calories"])
        #expect(problems { $0.protein = -1 } == ["protein"])
        #expect(problems { $0.calories = 1627 } == ["calories"], "kJ typed as kcal")
        #expect(problems { $0.sugars = 70 } == ["sugars"])
        #expect(problems { $0.saturatedFat = 7 } == ["saturatedFat"])
        #expect(problems { $0.sodium = 500 } == ["salt"])
        #expect(
            problems({
                $0.carbs = 90; $0.calories = 540
            }) == [""], "over 100 g of macros in 100 g")
        #expect(
            problems(
                {
                    $0.carbs = 90; $0.calories = 540
                }, maxGrams: LabelNutrients.maxGramsIn100ml
            ).isEmpty, "a syrup per 100 ml")
        #expect(LabelNutrients(calories: 60).problems(maxGrams: 100, requireCore: false).isEmpty, "a partial label, when allowed")
    }

    @Test("scaling a label scales every value it states")
    func scaling() {
        let serving = Self.oats.scaled(by: 0.4)
        #expect(serving.calories == 389 * 0.4 && serving.fiber == 10.6 * 0.4 && serving.sodium == nil && serving.salt == 0.02 * 0.4)
    }
}
