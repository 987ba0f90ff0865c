import FoodData
import Foundation

/// A nutrition label read from a photo, made whole: the values per 100 g or 100 ml (computed from the serving column
/// when the label has only that), energy in kcal (from kJ when only kJ is printed), sodium (from salt when only salt
/// is printed), per serving when the serving's size is known, and the list of what the server derived, so the user
/// knows which numbers to look at twice.
struct LabelReading: Sendable, Equatable {
    /// What the server computed rather than copied.
    enum Conversion: String, Sendable, CaseIterable {
        case caloriesFromKilojoules = "calories_from_kilojoules"
        case sodiumFromSalt = "sodium_from_salt"
        case per100FromServing = "per100_from_serving"
    }

    enum Basis: String, Sendable {
        case grams = "g"
        case millilitres = "ml"
    }

    var name: String?
    var brand: String?
    var basis: Basis
    /// The serving's weight (or volume) in the basis' unit, when printed.
    var servingSize: Double?
    /// Per 100 g or 100 ml; sodium resolved (no salt).
    var per100: LabelNutrients
    /// Per serving, when the serving's size is known.
    var perServing: LabelNutrients?
    /// The model's own confidence, 0 to 1.
    var confidence: Double
    var conversions: [Conversion]
}

/// The model's answer to `NutritionLabelPrompt`, decoded and checked. JSON that is not the asked shape is
/// `VisionError.malformedAnswer` (a provider misbehaving); a photo without a legible table, a label without energy or
/// any macronutrient, or numbers no label can hold (`LabelNutrients.problems`, columns that disagree) is
/// `VisionError.unreadableLabel`: the photo's problem, not the provider's.
struct NutritionLabelAnswer: Decodable, Sendable {
    /// One column as `NutritionLabelPrompt.column` spells it.
    struct Column: Decodable, Sendable {
        var energyKcal: Double?
        var energyKJ: Double?
        var protein: Double?
        var carbs: Double?
        var sugars: Double?
        var fat: Double?
        var saturatedFat: Double?
        var fiber: Double?
        var sodium: Double?
        var salt: Double?

        enum CodingKeys: String, CodingKey {
            case energyKcal = "energy_kcal", energyKJ = "energy_kj", protein = "protein_g", carbs = "carbs_g", sugars = "sugars_g"
            case fat = "fat_g", saturatedFat = "saturated_fat_g", fiber = "fiber_g", sodium = "sodium_mg", salt = "salt_g"
        }
    }

    var isNutritionLabel: Bool
    var productName: String
    var brand: String
    var basis: String
    var servingSize: Double?
    var servingUnit: String
    var per100: Column
    var perServing: Column
    var confidence: Double

    enum CodingKeys: String, CodingKey {
        case isNutritionLabel = "is_nutrition_label", productName = "product_name", brand, basis
        case servingSize = "serving_size", servingUnit = "serving_unit", per100 = "per_100", perServing = "per_serving", confidence
    }

    /// Most grams or millilitres in one serving (a family pack), as products allow.
    static let maxServing = 5000.0
    /// Energy printed in kcal and in kJ may differ by rounding, not by more than this share (or 5 kcal).
    static let energyTolerance = 0.1
    /// The per-100 column scaled to the serving and the serving column may differ by rounding, not by more than this
    /// share (or 10 kcal).
    static let columnTolerance = 0.15

    /// The label in the model's JSON `text`; throws `VisionError.malformedAnswer` or `.unreadableLabel` naming the
    /// first problem.
    static func reading(fromJSON text: String) throws -> LabelReading {
        let answer: NutritionLabelAnswer
        do {
            answer = try JSONDecoder().decode(NutritionLabelAnswer.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw VisionError.malformedAnswer("the model's JSON is not the asked shape: \(MealItemsAnswer.describe(error))")
        }
        return try answer.reading()
    }

    private func reading() throws -> LabelReading {
        guard isNutritionLabel else { throw VisionError.unreadableLabel("the model saw no legible nutrition table") }
        guard confidence.isFinite, (0...1).contains(confidence) else {
            throw VisionError.unreadableLabel("confidence \(confidence) is outside 0...1")
        }
        let basis = Self.basis(basis, servingUnit: servingUnit)
        let serving = servingSize.flatMap { size -> Double? in
            let unit = servingUnit.trimmingCharacters(in: .whitespaces).lowercased()
            guard size.isFinite, size > 0, size <= Self.maxServing, unit.isEmpty || unit == basis.rawValue else { return nil }
            return size
        }
        var conversions: Set<LabelReading.Conversion> = []
        let stated100 = try Self.resolve(per100, conversions: &conversions)
        let statedServing = try Self.resolve(perServing, conversions: &conversions)

        let values: LabelNutrients
        if !stated100.isEmpty {
            values = stated100
        } else if !statedServing.isEmpty {
            guard let serving else {
                throw VisionError.unreadableLabel("the label gives values per serving but not the serving's size in \(basis.rawValue)")
            }
            values = statedServing.scaled(by: 100 / serving).rounded()
            conversions.insert(.per100FromServing)
        } else {
            throw VisionError.unreadableLabel("no nutrient value could be read")
        }
        guard LabelNutrients.coreNames.contains(where: { !values.missing.contains($0) }) else {
            throw VisionError.unreadableLabel("neither energy nor protein, carbs or fat could be read")
        }
        let maxGrams = basis == .grams ? LabelNutrients.maxGramsIn100g : LabelNutrients.maxGramsIn100ml
        if let (name, problem) = values.problems(maxGrams: maxGrams, requireCore: false).sorted(by: { $0.key < $1.key }).first {
            throw VisionError.unreadableLabel("per 100 \(basis.rawValue)\(name.isEmpty ? "" : ", \(name)"): \(problem)")
        }
        var perServing: LabelNutrients?
        if let serving {
            let scaled = values.scaled(by: serving / 100).rounded()
            if !statedServing.isEmpty, !stated100.isEmpty, let calories = statedServing.calories, let expected = scaled.calories,
                abs(calories - expected) > max(10, calories * Self.columnTolerance)
            {
                throw VisionError.unreadableLabel(
                    "the serving column's \(Int(calories)) kcal does not match the \(Int(expected)) kcal of \(Int(serving)) \(basis.rawValue) per 100"
                )
            }
            perServing = statedServing.isEmpty ? scaled : statedServing
        }
        return LabelReading(
            name: Self.text(productName, limit: 200), brand: Self.text(brand, limit: 100), basis: basis, servingSize: serving,
            per100: values, perServing: perServing, confidence: confidence,
            conversions: LabelReading.Conversion.allCases.filter(conversions.contains))
    }

    /// The column's values with energy in kcal and sodium in mg: kJ and salt converted when they are all it states.
    private static func resolve(_ column: Column, conversions: inout Set<LabelReading.Conversion>) throws -> LabelNutrients {
        var calories = column.energyKcal
        if let kilojoules = column.energyKJ, kilojoules.isFinite {
            let fromKilojoules = kilojoules / LabelNutrients.kilojoulesPerKilocalorie
            if let kcal = calories {
                guard abs(kcal - fromKilojoules) <= max(5, kcal * energyTolerance) else {
                    throw VisionError.unreadableLabel("\(Int(kcal)) kcal and \(Int(kilojoules)) kJ disagree")
                }
            } else {
                calories = (fromKilojoules * 10).rounded() / 10
                conversions.insert(.caloriesFromKilojoules)
            }
        }
        var nutrients = LabelNutrients(
            calories: calories, protein: column.protein, carbs: column.carbs, fat: column.fat, fiber: column.fiber, sugars: column.sugars,
            saturatedFat: column.saturatedFat, sodium: column.sodium, salt: column.salt)
        if column.sodium == nil, let fromSalt = nutrients.sodiumOrFromSalt {
            nutrients.sodium = fromSalt.rounded()
            conversions.insert(.sodiumFromSalt)
        }
        if let sodium = column.sodium, let salt = column.salt, !LabelNutrients.agree(sodium: sodium, salt: salt) {
            throw VisionError.unreadableLabel("\(Int(sodium)) mg sodium and \(salt) g salt disagree")
        }
        nutrients.salt = nil
        return nutrients
    }

    /// `g` or `ml`: the model's basis, else the serving's unit, else grams.
    private static func basis(_ basis: String, servingUnit: String) -> LabelReading.Basis {
        for text in [basis, servingUnit] {
            let unit = text.trimmingCharacters(in: .whitespaces).lowercased()
            if unit.hasSuffix("ml") { return .millilitres }
            if unit.hasSuffix("g") { return .grams }
        }
        return .grams
    }

    /// The printed text trimmed, stripped of control characters and cut to `limit`; nil when empty.
    private static func text(_ value: String, limit: Int) -> String? {
        let cleaned = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return cleaned.isEmpty ? nil : String(cleaned.prefix(limit))
    }
}

extension LabelNutrients {
    /// Grams and kcal to one decimal, sodium to the milligram: what a label computed from another column can claim.
    fileprivate func rounded() -> LabelNutrients {
        func tenth(_ value: Double?) -> Double? { value.map { ($0 * 10).rounded() / 10 } }
        return LabelNutrients(
            calories: tenth(calories), protein: tenth(protein), carbs: tenth(carbs), fat: tenth(fat), fiber: tenth(fiber),
            sugars: tenth(sugars), saturatedFat: tenth(saturatedFat), sodium: sodium?.rounded(), salt: tenth(salt))
    }
}
