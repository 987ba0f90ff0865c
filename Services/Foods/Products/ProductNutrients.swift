import EventContracts

/// A product's nutrients per 100 g or 100 ml: energy in kcal, sodium in mg, the rest in grams. A nutrient the label
/// or Open Food Facts did not give is nil and listed in `missing`: it is never guessed. Answers spell nil as `null`.
struct ProductNutrients: Codable, Sendable, Equatable {
    var calories: Double?
    var protein: Double?
    var carbs: Double?
    var fat: Double?
    var fiber: Double?
    var sugars: Double?
    var saturatedFat: Double?
    var sodium: Double?

    /// Every nutrient's name as the API spells it, in answer order, with its value.
    var all: [(name: String, value: Double?)] {
        [
            ("calories", calories), ("protein", protein), ("carbs", carbs), ("fat", fat), ("fiber", fiber), ("sugars", sugars),
            ("saturatedFat", saturatedFat), ("sodium", sodium),
        ]
    }

    /// The names of the nutrients not known.
    var missing: [String] { all.filter { $0.value == nil }.map(\.name) }

    /// Whether energy and the three macronutrients are all known: what a meal's totals need.
    var isComplete: Bool { calories != nil && protein != nil && carbs != nil && fat != nil }

    /// These nutrients for `factor` times the amount (grams / 100 for a serving), unknown ones staying unknown.
    func scaled(by factor: Double) -> ProductNutrients {
        func scale(_ value: Double?) -> Double? { value.map { ($0 * factor * 100).rounded() / 100 } }
        return ProductNutrients(
            calories: scale(calories), protein: scale(protein), carbs: scale(carbs), fat: scale(fat), fiber: scale(fiber),
            sugars: scale(sugars), saturatedFat: scale(saturatedFat), sodium: scale(sodium))
    }

    var event: FoodProductChanged.Nutrients {
        FoodProductChanged.Nutrients(
            calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber, sugars: sugars, saturatedFat: saturatedFat,
            sodium: sodium)
    }

    private enum CodingKeys: String, CodingKey {
        case calories, protein, carbs, fat, fiber, sugars, saturatedFat, sodium
    }

    /// Writes unknown nutrients as `null`, so an answer always names all eight.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(calories, forKey: .calories)
        try container.encode(protein, forKey: .protein)
        try container.encode(carbs, forKey: .carbs)
        try container.encode(fat, forKey: .fat)
        try container.encode(fiber, forKey: .fiber)
        try container.encode(sugars, forKey: .sugars)
        try container.encode(saturatedFat, forKey: .saturatedFat)
        try container.encode(sodium, forKey: .sodium)
    }
}
