/// The nutrients the scorers, the meal totals and the API answers use, for some amount of food (per 100 g in the table).
public struct NutrientProfile: Codable, Sendable, Equatable {
    public var calories: Double
    public var protein: Double
    public var carbs: Double
    public var fat: Double
    public var fiber: Double
    public var sugars: Double
    public var saturatedFat: Double
    /// Milligrams.
    public var sodium: Double

    public init(
        calories: Double, protein: Double, carbs: Double, fat: Double, fiber: Double, sugars: Double, saturatedFat: Double, sodium: Double
    ) {
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.fiber = fiber
        self.sugars = sugars
        self.saturatedFat = saturatedFat
        self.sodium = sodium
    }

    public static let zero = NutrientProfile(calories: 0, protein: 0, carbs: 0, fat: 0, fiber: 0, sugars: 0, saturatedFat: 0, sodium: 0)

    /// This profile scaled by `factor` (grams / 100 for a table entry).
    public func scaled(by factor: Double) -> NutrientProfile {
        NutrientProfile(
            calories: calories * factor, protein: protein * factor, carbs: carbs * factor, fat: fat * factor,
            fiber: fiber * factor, sugars: sugars * factor, saturatedFat: saturatedFat * factor, sodium: sodium * factor)
    }

    /// The sum of two profiles.
    public static func + (lhs: NutrientProfile, rhs: NutrientProfile) -> NutrientProfile {
        NutrientProfile(
            calories: lhs.calories + rhs.calories, protein: lhs.protein + rhs.protein, carbs: lhs.carbs + rhs.carbs,
            fat: lhs.fat + rhs.fat, fiber: lhs.fiber + rhs.fiber, sugars: lhs.sugars + rhs.sugars,
            saturatedFat: lhs.saturatedFat + rhs.saturatedFat, sodium: lhs.sodium + rhs.sodium)
    }

    /// Carbohydrate minus fibre, never negative.
    public var netCarbs: Double { max(0, carbs - fiber) }

    /// Energy from protein, carbs (net of fibre) and fat by Atwater factors; the base of every energy share.
    public var macroEnergy: Double { protein * 4 + netCarbs * 4 + fat * 9 }

    /// Share of macro energy from protein, net carbs and fat (each 0...1); zeros for food without energy.
    public var energyShares: (protein: Double, carbs: Double, fat: Double) {
        let total = macroEnergy
        guard total > 0 else { return (0, 0, 0) }
        return (protein * 4 / total, netCarbs * 4 / total, fat * 9 / total)
    }

    /// Every value rounded for display (1 decimal; calories and sodium whole).
    public var rounded: NutrientProfile {
        func one(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        return NutrientProfile(
            calories: calories.rounded(), protein: one(protein), carbs: one(carbs), fat: one(fat), fiber: one(fiber),
            sugars: one(sugars), saturatedFat: one(saturatedFat), sodium: sodium.rounded())
    }
}
