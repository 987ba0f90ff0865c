import FoodData
import Foundation

/// The items the model listed, decoded from its JSON and checked for plausibility before anyone relies on them.
/// JSON that is not the asked shape is `VisionError.malformedAnswer` (a provider misbehaving). No items, too many, or
/// any failed check is `VisionError.noFoodRecognised`, for the whole answer: one absurd item means the model misread
/// the photo or the units, and the rest of its answer cannot be trusted either; that is the photo's problem.
struct MealItemsAnswer: Decodable, Sendable {
    /// One item as `MealItemsPrompt.schema` spells it.
    struct Item: Decodable, Sendable {
        var name: String
        var amount: Double
        var unit: String
        var grams: Double
        var confidence: Double
        var calories: Double
        var protein: Double
        var carbs: Double
        var fat: Double
        var fiber: Double
        var sugars: Double
        var saturatedFat: Double
        var sodium: Double
        var alcohol: Double

        enum CodingKeys: String, CodingKey {
            case name, amount, unit, grams, confidence
            case calories = "calories_kcal", protein = "protein_g", carbs = "carbs_g", fat = "fat_g", fiber = "fiber_g"
            case sugars = "sugars_g", saturatedFat = "saturated_fat_g", sodium = "sodium_mg", alcohol = "alcohol_g"
        }
    }

    var items: [Item]

    /// A portion above 3 kg is not one item on a plate.
    static let maxGrams = 3000.0
    /// No single portion holds more than 4000 kcal.
    static let maxCalories = 4000.0
    /// Protein, carbs, fat and alcohol together may not weigh more than the portion plus 10% and 2 g.
    static let massTolerance = 1.1
    static let massSlack = 2.0

    /// The recognised items in the model's JSON `text`; throws `VisionError.malformedAnswer` or `.noFoodRecognised`
    /// naming the first problem.
    static func items(fromJSON text: String, maxItems: Int) throws -> [RecognisedItem] {
        let answer: MealItemsAnswer
        do {
            answer = try JSONDecoder().decode(MealItemsAnswer.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw VisionError.malformedAnswer("the model's JSON is not the asked shape: \(describe(error))")
        }
        guard !answer.items.isEmpty else { throw VisionError.noFoodRecognised("the model saw no food or drink") }
        guard answer.items.count <= maxItems else {
            throw VisionError.noFoodRecognised("the model listed \(answer.items.count) items, more than \(maxItems)")
        }
        return try answer.items.enumerated().map { index, item in try validated(item, number: index + 1) }
    }

    private static func validated(_ item: Item, number: Int) throws -> RecognisedItem {
        func problem(_ text: String) -> VisionError {
            .noFoodRecognised("item \(number) (\"\(item.name.prefix(60))\"): \(text)")
        }
        let name = item.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw problem("no name") }
        let numbers = [
            item.amount, item.grams, item.confidence, item.calories, item.protein, item.carbs, item.fat, item.fiber,
            item.sugars, item.saturatedFat, item.sodium, item.alcohol,
        ]
        guard numbers.allSatisfy({ $0.isFinite && $0 >= 0 }) else { throw problem("a negative or non-finite number") }
        guard item.amount > 0 else { throw problem("an amount of 0") }
        guard item.grams > 0, item.grams <= maxGrams else { throw problem("\(item.grams) g is not a portion (0 to \(Int(maxGrams)) g)") }
        guard item.confidence <= 1 else { throw problem("confidence \(item.confidence) is outside 0...1") }
        guard item.calories <= maxCalories else { throw problem("\(item.calories) kcal is more than \(Int(maxCalories)) kcal") }
        // Stated energy and the macros' (FoodData's `EnergyCheck`, which users' product labels pass too).
        guard EnergyCheck.agrees(calories: item.calories, protein: item.protein, carbs: item.carbs, fat: item.fat, alcohol: item.alcohol) else {
            let macroEnergy = EnergyCheck.macroEnergy(protein: item.protein, carbs: item.carbs, fat: item.fat, alcohol: item.alcohol)
            throw problem("\(Int(item.calories)) kcal does not match the \(Int(macroEnergy)) kcal of its macros")
        }
        let macroMass = item.protein + item.carbs + item.fat + item.alcohol
        guard macroMass <= item.grams * massTolerance + massSlack else {
            throw problem("\(Int(macroMass)) g of macros in a \(Int(item.grams)) g portion")
        }
        let unit = item.unit.trimmingCharacters(in: .whitespacesAndNewlines)
        return RecognisedItem(
            name: name, amount: item.amount, unit: unit.isEmpty ? "serving" : unit, grams: item.grams, confidence: item.confidence,
            estimate: NutrientProfile(
                calories: item.calories, protein: item.protein, carbs: item.carbs, fat: item.fat, fiber: item.fiber,
                sugars: item.sugars, saturatedFat: item.saturatedFat, sodium: item.sodium))
    }

    /// A short account of where the JSON departs from the schema, without echoing the model's text.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type at \(path(context.codingPath))"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "unreadable \(path(context.codingPath))"
        @unknown default: return "unreadable"
        }
    }
}
