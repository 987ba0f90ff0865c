import FoodData
import Foundation
import Testing

@testable import MealsService

/// Labels as a model answers `NutritionLabelPrompt`, in the shapes real panels have: a European table per 100 g with
/// kJ, kcal and salt; an American one per serving only; a drink per 100 ml; and misreads.
@Suite("Nutrition labels read from the model's answer")
struct NutritionLabelAnswerTests {
    /// A column in the schema's names; every value null unless given.
    static func column(
        kcal: Double? = nil, kJ: Double? = nil, protein: Double? = nil, carbs: Double? = nil, sugars: Double? = nil, fat: Double? = nil,
        saturatedFat: Double? = nil, fiber: Double? = nil, sodium: Double? = nil, salt: Double? = nil
    ) -> [String: Any] {
        let values: [String: Double?] = [
            "energy_kcal": kcal, "energy_kj": kJ, "protein_g": protein, "carbs_g": carbs, "sugars_g": sugars, "fat_g": fat,
            "saturated_fat_g": saturatedFat, "fiber_g": fiber, "sodium_mg": sodium, "salt_g": salt,
        ]
        return values.mapValues { $0.map { $0 as Any } ?? NSNull() }
    }

    /// The model's JSON for a label.
    static func answer(
        isLabel: Bool = true, name: String = "", brand: String = "", basis: String = "g", servingSize: Double? = nil,
        servingUnit: String = "", per100: [String: Any] = column(), perServing: [String: Any] = column(), confidence: Double = 0.9
    ) -> String {
        let object: [String: Any] = [
            "is_nutrition_label": isLabel, "product_name": name, "brand": brand, "basis": basis,
            "serving_size": servingSize.map { $0 as Any } ?? NSNull(), "serving_unit": servingUnit, "per_100": per100,
            "per_serving": perServing, "confidence": confidence,
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// A European yoghurt label: per 100 g with both energies and salt, and a 150 g pot.
    static let yoghurt = answer(
        name: "  Greek yoghurt ", brand: "Acme", servingSize: 150, servingUnit: "g",
        per100: column(kcal: 60, kJ: 252, protein: 10, carbs: 3.6, sugars: 3.6, fat: 0.4, saturatedFat: 0.1, salt: 0.1))

    /// The error a reading of `json` throws, or nil.
    static func failure(_ json: String) -> VisionError? {
        do {
            _ = try NutritionLabelAnswer.reading(fromJSON: json)
            return nil
        } catch {
            return error as? VisionError
        }
    }

    @Test("a European label: values per 100 g as printed, sodium from salt, the pot's values computed, the name trimmed")
    func european() throws {
        let reading = try NutritionLabelAnswer.reading(fromJSON: Self.yoghurt)
        #expect(reading.name == "Greek yoghurt" && reading.brand == "Acme" && reading.basis == .grams && reading.servingSize == 150)
        #expect(reading.per100 == LabelNutrients(calories: 60, protein: 10, carbs: 3.6, fat: 0.4, sugars: 3.6, saturatedFat: 0.1, sodium: 40))
        #expect(reading.perServing?.calories == 90 && reading.perServing?.protein == 15 && reading.perServing?.sodium == 60)
        #expect(reading.conversions == [.sodiumFromSalt] && reading.per100.missing == ["fiber"] && reading.confidence == 0.9)
    }

    @Test("an American label with a per-serving column only: per 100 g computed from the serving's grams, and said so")
    func american() throws {
        let json = Self.answer(
            name: "Rolled oats", basis: "g", servingSize: 40, servingUnit: "g",
            perServing: Self.column(kcal: 150, protein: 5, carbs: 27, sugars: 1, fat: 3, saturatedFat: 0.5, fiber: 4, sodium: 0))
        let reading = try NutritionLabelAnswer.reading(fromJSON: json)
        #expect(
            reading.per100
                == LabelNutrients(calories: 375, protein: 12.5, carbs: 67.5, fat: 7.5, fiber: 10, sugars: 2.5, saturatedFat: 1.3, sodium: 0))
        #expect(reading.perServing?.calories == 150 && reading.conversions == [.per100FromServing] && reading.per100.missing.isEmpty)
    }

    @Test("energy in kJ only becomes kcal; a drink per 100 ml keeps its basis, a serving in another unit is dropped")
    func kilojoulesAndDrinks() throws {
        let juice = Self.answer(
            basis: "ml", servingSize: 1, servingUnit: "g", per100: Self.column(kJ: 180, protein: 0.5, carbs: 10, sugars: 9, fat: 0))
        let reading = try NutritionLabelAnswer.reading(fromJSON: juice)
        #expect(reading.basis == .millilitres && reading.per100.calories == 43 && reading.conversions == [.caloriesFromKilojoules])
        #expect(reading.servingSize == nil && reading.perServing == nil, "a serving in grams says nothing of 100 ml")
        #expect(reading.per100.missing == ["fiber", "saturatedFat", "sodium"])
    }

    @Test("a label missing some core values is still read (the user fills them in); one with none of them is unreadable")
    func partial() throws {
        let cutOff = try NutritionLabelAnswer.reading(fromJSON: Self.answer(per100: Self.column(kcal: 120, protein: 3, carbs: 25)))
        #expect(cutOff.per100.missing.prefix(1) == ["fat"])
        let onlySalt = Self.failure(Self.answer(per100: Self.column(sugars: 3, salt: 1)))
        #expect(onlySalt == .unreadableLabel("neither energy nor protein, carbs or fat could be read"))
    }

    @Test("no table, no numbers, per serving without the serving's size: unreadable, the photo's problem and not the provider's")
    func unreadable() {
        for json in [
            Self.answer(isLabel: false),
            Self.answer(),
            Self.answer(perServing: Self.column(kcal: 150, protein: 5, carbs: 27, fat: 3)),
        ] {
            let error = Self.failure(json)
            guard case .unreadableLabel = error else {
                Issue.record("expected unreadableLabel, got \(String(describing: error))")
                continue
            }
            #expect(error?.saysProviderIsUnwell == false && error?.apiError.code == "label_unreadable")
        }
    }

    @Test("misreads: sugars above carbs, kJ taken for kcal, kcal and kJ apart, salt and sodium apart, columns apart, confidence out of range")
    func misreads() {
        let cases: [(String, String)] = [
            ("sugars", Self.answer(per100: Self.column(kcal: 60, protein: 10, carbs: 3.6, sugars: 9, fat: 0.4))),
            ("calories", Self.answer(per100: Self.column(kcal: 252, protein: 10, carbs: 3.6, fat: 0.4))),
            ("kJ", Self.answer(per100: Self.column(kcal: 60, kJ: 600, protein: 10, carbs: 3.6, fat: 0.4))),
            ("salt", Self.answer(per100: Self.column(kcal: 60, protein: 10, carbs: 3.6, fat: 0.4, sodium: 400, salt: 0.1))),
            (
                "columns",
                Self.answer(
                    servingSize: 150, servingUnit: "g", per100: Self.column(kcal: 60, protein: 10, carbs: 3.6, fat: 0.4),
                    perServing: Self.column(kcal: 60, protein: 10, carbs: 3.6, fat: 0.4))
            ),
            ("confidence", Self.answer(per100: Self.column(kcal: 60, protein: 10, carbs: 3.6, fat: 0.4), confidence: 1.5)),
        ]
        for (name, json) in cases {
            guard case .unreadableLabel = Self.failure(json) else {
                Issue.record("\(name): expected unreadableLabel, got \(String(describing: Self.failure(json)))")
                continue
            }
        }
    }

    @Test("an answer that is not the asked JSON is malformed: the provider's problem")
    func malformed() {
        for json in ["not json", #"{"items":[]}"#, #"{"is_nutrition_label":"yes"}"#] {
            guard case .malformedAnswer = Self.failure(json) else {
                Issue.record("\(json): expected malformedAnswer, got \(String(describing: Self.failure(json)))")
                continue
            }
            #expect(Self.failure(json)?.saysProviderIsUnwell == true)
        }
    }
}
