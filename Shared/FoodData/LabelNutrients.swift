/// The nutrients of 100 g or 100 ml of a packaged food as its label states them, and the checks every label passes
/// wherever it comes from: typed in by a user (`POST /api/foods/products`) or read from a photo of the label
/// (`POST /api/analyze` with `kind=label`), so a draft read from a photo is one the products route accepts.
public struct LabelNutrients: Sendable, Equatable {
    public var calories: Double?
    public var protein: Double?
    public var carbs: Double?
    public var fat: Double?
    public var fiber: Double?
    public var sugars: Double?
    public var saturatedFat: Double?
    /// Milligrams.
    public var sodium: Double?
    /// Grams of salt, as European labels give it.
    public var salt: Double?

    /// Most kcal in 100 g (pure fat is 900).
    public static let maxCalories = 900.0
    /// Most grams of any nutrient in 100 g.
    public static let maxGramsIn100g = 100.0
    /// Most grams of any nutrient in 100 ml: syrups are denser than water.
    public static let maxGramsIn100ml = 150.0
    /// Most sodium in 100 g in mg (table salt is about 39,000).
    public static let maxSodium = 40_000.0
    /// Most salt in 100 g, in grams.
    public static let maxSalt = 100.0
    /// Kilojoules in a kilocalorie.
    public static let kilojoulesPerKilocalorie = 4.184
    /// Sodium is 40% of salt by weight.
    public static let sodiumMilligramsPerGramOfSalt = 400.0

    /// The four values without which a label is not a label: energy, protein, carbs and fat.
    public static let coreNames = ["calories", "protein", "carbs", "fat"]

    public init(
        calories: Double? = nil, protein: Double? = nil, carbs: Double? = nil, fat: Double? = nil, fiber: Double? = nil,
        sugars: Double? = nil, saturatedFat: Double? = nil, sodium: Double? = nil, salt: Double? = nil
    ) {
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.fiber = fiber
        self.sugars = sugars
        self.saturatedFat = saturatedFat
        self.sodium = sodium
        self.salt = salt
    }

    /// Whether `sodium` (mg) and `salt` (g), both stated, say the same within rounding: 5 mg or 5 %.
    public static func agree(sodium: Double, salt: Double) -> Bool {
        abs(sodium - salt * sodiumMilligramsPerGramOfSalt) <= max(5, sodium * 0.05)
    }

    /// The sodium the label states, or the one its salt stands for.
    public var sodiumOrFromSalt: Double? {
        sodium ?? salt.map { $0 * Self.sodiumMilligramsPerGramOfSalt }
    }

    /// Whether no value at all is stated.
    public var isEmpty: Bool {
        [calories, protein, carbs, fat, fiber, sugars, saturatedFat, sodium, salt].allSatisfy { $0 == nil }
    }

    /// The names of the nutrients a product carries (`calories` … `sodium`, salt counting as sodium) that are not stated.
    public var missing: [String] {
        let values: [(String, Double?)] = [
            ("calories", calories), ("protein", protein), ("carbs", carbs), ("fat", fat), ("fiber", fiber), ("sugars", sugars),
            ("saturatedFat", saturatedFat), ("sodium", sodiumOrFromSalt),
        ]
        return values.filter { $0.1 == nil }.map(\.0)
    }

    /// Every value scaled by `factor` (per serving into per 100, or back).
    public func scaled(by factor: Double) -> LabelNutrients {
        func scale(_ value: Double?) -> Double? { value.map { $0 * factor } }
        return LabelNutrients(
            calories: scale(calories), protein: scale(protein), carbs: scale(carbs), fat: scale(fat), fiber: scale(fiber),
            sugars: scale(sugars), saturatedFat: scale(saturatedFat), sodium: scale(sodium), salt: scale(salt))
    }

    /// What is wrong with these values as 100 g (`maxGrams` 100) or 100 ml (`maxGrams` 150) of a product, keyed by the
    /// nutrient's name (`""` for the values together), each a sentence for the user; empty when they are a plausible
    /// label. Ranges, sugars within carbs, saturated fat within fat, salt against sodium, the macros' weight, and energy
    /// against the macros (`EnergyCheck`). `requireCore` makes energy, protein, carbs and fat required.
    public func problems(maxGrams: Double, requireCore: Bool) -> [String: String] {
        var problems: [String: String] = [:]
        func check(_ value: Double?, _ name: String, max: Double, unit: String) {
            guard let value else {
                if requireCore && Self.coreNames.contains(name) { problems[name] = "Required: 0 to \(Int(max)) \(unit) per 100." }
                return
            }
            if !value.isFinite || value < 0 || value > max { problems[name] = "Use 0 to \(Int(max)) \(unit) per 100." }
        }
        check(calories, "calories", max: Self.maxCalories, unit: "kcal")
        for (value, name) in [
            (protein, "protein"), (carbs, "carbs"), (fat, "fat"), (fiber, "fiber"), (sugars, "sugars"), (saturatedFat, "saturatedFat"),
        ] {
            check(value, name, max: maxGrams, unit: "g")
        }
        check(sodium, "sodium", max: Self.maxSodium, unit: "mg")
        check(salt, "salt", max: Self.maxSalt, unit: "g")
        guard problems.isEmpty else { return problems }

        if let sodium, let salt, !Self.agree(sodium: sodium, salt: salt) {
            problems["salt"] = "Salt and sodium disagree (sodium is salt × 400 mg); give one of them."
        }
        if let carbs, let sugars, sugars > carbs + 0.05 { problems["sugars"] = "Sugars are part of carbs: at most \(carbs) g." }
        if let fat, let saturatedFat, saturatedFat > fat + 0.05 { problems["saturatedFat"] = "Saturated fat is part of fat: at most \(fat) g." }
        if let protein, let carbs, let fat, protein + carbs + fat > maxGrams + 0.5 {
            problems[""] = "Protein, carbs and fat weigh more than \(Int(maxGrams)) g together."
        }
        if let calories, let protein, let carbs, let fat, !EnergyCheck.agrees(calories: calories, protein: protein, carbs: carbs, fat: fat) {
            let macros = Int(EnergyCheck.macroEnergy(protein: protein, carbs: carbs, fat: fat).rounded())
            problems["calories"] = "\(Int(calories)) kcal does not match the \(macros) kcal of the macros (kJ given as kcal?)."
        }
        return problems
    }
}
