import FoodData

/// Turns a written portion of a table food into grams, using the food's own household measures first
/// (a cup of chopped broccoli weighs 91 g, a cup of milk 244 g), then standard volumes with the food's
/// density (from its cup or fl oz measure, else water's), and for a bare count ("2 eggs") the food's
/// usual unit (medium, large, whole, piece...). Never a silent 100 g: without any measure the portion is
/// one serving of 100 g and its `certainty` is low, so the item shows a low confidence.
enum PortionResolver {
    /// Grams of the portion, the unit shown on the item, and how sure the conversion is (0...1).
    struct Resolution: Equatable, Sendable {
        var grams: Double
        var unit: String
        var certainty: Double
    }

    static func resolve(_ portion: ParsedPortion, food: FoodRecord) -> Resolution {
        switch portion.unit {
        case .mass(let name, let gramsPerUnit)?:
            return Resolution(grams: portion.quantity * gramsPerUnit, unit: name, certainty: 1)
        case .volume(let name, let millilitres)?:
            return Resolution(grams: portion.quantity * millilitres * density(of: food), unit: name, certainty: 0.95)
        case .household(let word, let millilitres)?:
            if let measure = measure(named: word, in: food) {
                return Resolution(grams: portion.quantity * measure.gramsPerUnit, unit: word, certainty: 0.9)
            }
            if let millilitres {
                return Resolution(grams: portion.quantity * millilitres * density(of: food), unit: word, certainty: 0.8)
            }
            return countResolution(portion, food: food, unit: word, certainty: 0.6)
        case nil:
            return countResolution(portion, food: food, unit: nil, certainty: portion.quantityWritten ? 0.85 : 0.6)
        }
    }

    /// A count of the food's usual unit, or servings of its first measure.
    private static func countResolution(_ portion: ParsedPortion, food: FoodRecord, unit: String?, certainty: Double) -> Resolution {
        if let measure = usualUnit(of: food, phrase: portion.foodPhrase) {
            return Resolution(grams: portion.quantity * measure.gramsPerUnit, unit: unit ?? measure.name, certainty: certainty)
        }
        if let measure = food.measures.first {
            return Resolution(grams: portion.quantity * measure.gramsPerUnit, unit: unit ?? measure.name, certainty: certainty * 0.8)
        }
        return Resolution(grams: portion.quantity * 100, unit: unit ?? "serving (100 g)", certainty: 0.3)
    }

    /// The measure a bare count means: one named after a word of the phrase ("breast" for chicken breasts),
    /// else the first of medium, large, whole, piece and the like; never a cup, spoon or weight.
    private static func usualUnit(of food: FoodRecord, phrase: String) -> HouseholdMeasure? {
        let countable = food.measures.filter { measure in
            let words = FoodNameTokenizer.words(measure.name)
            return words.first.map { !uncountableWords.contains($0) } ?? false
        }
        // The phrase's last word is its head noun ("chicken breast" is a breast); USDA's "unit (yield from 1 lb
        // ready-to-cook chicken)" measures name the whole animal and are never what a count means.
        let phraseWords = FoodNameTokenizer.words(phrase)
        let candidates = countable.filter { !$0.name.contains("yield") }
        for word in phraseWords.reversed() {
            if let named = candidates.first(where: { FoodNameTokenizer.words($0.name).contains(word) }) { return named }
        }
        for preferred in usualUnitWords {
            if let measure = countable.first(where: { FoodNameTokenizer.words($0.name).first == preferred }) { return measure }
        }
        return candidates.first ?? countable.first
    }

    /// The food's measure whose name starts with `word` ("slice", "cup, chopped"), else one that mentions it.
    static func measure(named word: String, in food: FoodRecord) -> HouseholdMeasure? {
        food.measures.first { FoodNameTokenizer.words($0.name).first == word }
            ?? food.measures.first { FoodNameTokenizer.words($0.name).contains(word) }
    }

    /// Grams per millilitre from the food's cup or fl oz measure; water's 1.0 when it has neither.
    static func density(of food: FoodRecord) -> Double {
        if let cup = food.measures.first(where: { FoodNameTokenizer.words($0.name).first == "cup" }) {
            return cup.gramsPerUnit / 236.6
        }
        if let fluidOunce = food.measures.first(where: { $0.name.hasPrefix("fl oz") }) {
            return fluidOunce.gramsPerUnit / 29.5735
        }
        return 1.0
    }

    private static let uncountableWords: Set<String> = [
        "cup", "tbsp", "tsp", "oz", "lb", "fl", "g", "ml", "l", "quart", "pint", "gallon", "liter", "package", "container",
    ]
    private static let usualUnitWords = [
        "medium", "large", "whole", "piece", "slice", "each", "item", "fruit", "serving", "nlea", "small", "unit",
    ]
}
