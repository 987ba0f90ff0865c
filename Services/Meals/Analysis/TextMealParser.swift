import FoodData
import Foundation

/// Reads a written meal ("2 eggs, a slice of whole wheat toast and 200 ml orange juice") into portions.
///
/// Foods are separated by commas, semicolons, new lines, "plus", "+" and "&"; "and" and "with" separate too
/// unless the words around them name one food ("mac and cheese", "coffee with milk" when the table has it):
/// `namesOneFood` decides. A portion starts with a quantity (digits, decimals, fractions such as 1/2, ½ or
/// "1 1/2", number words, "a", "half a", "a couple of", "a dozen"), then an optional unit (mass, volume,
/// spoon, cup, slice or any household measure word) and "of"; "200g" and "(150 g)" at the end work too.
struct TextMealParser: Sendable {
    /// Whether a phrase containing "and" or "with" names a single food of the table.
    var namesOneFood: @Sendable (String) -> Bool

    /// The portions of `text`, in the order written; empty when it names nothing.
    func parse(_ text: String) -> [ParsedPortion] {
        segments(of: text).compactMap(portion(from:))
    }

    /// Splits the text into one string per food.
    func segments(of text: String) -> [String] {
        let normalised = Self.normalise(text)
        let hardSeparated = normalised.components(separatedBy: CharacterSet(charactersIn: ",;\n+&"))
            .flatMap { $0.components(separatedBy: " plus ") }
        return hardSeparated.flatMap(splitOnConjunctions).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// "x and y" becomes two foods unless `namesOneFood` says the whole is one and y has no quantity of its own.
    private func splitOnConjunctions(_ segment: String) -> [String] {
        let words = segment.split(separator: " ").map(String.init)
        guard let index = words.firstIndex(where: { $0 == "and" || $0 == "with" }), index > 0 else { return [segment] }
        let left = words[..<index].joined(separator: " ")
        let right = words[(index + 1)...].joined(separator: " ")
        guard !right.isEmpty else { return [left] }
        let rightHasQuantity = QuantityReader(words: Array(words[(index + 1)...])).read() != nil
        if !rightHasQuantity && namesOneFood(segment) {
            return [segment]
        }
        return [left] + splitOnConjunctions(right)
    }

    /// One portion from one food's words.
    private func portion(from segment: String) -> ParsedPortion? {
        var words = segment.split(separator: " ").map(String.init)
        var quantity = 1.0
        var unit: PortionUnit?
        var written = false
        if let leading = QuantityReader(words: words).read() {
            quantity = leading.value
            written = true
            words.removeFirst(leading.words)
            // A household word that is the last word is the food itself ("2 eggs", "3 cookies"); "2 g" names nothing.
            if let first = words.first, let found = PortionUnit.named(FoodNameTokenizer.singular(first), next: words.dropFirst().first),
                words.count > found.words || !found.unit.isHousehold
            {
                unit = found.unit
                words.removeFirst(found.words)
            }
            if words.first == "of" { words.removeFirst() }
        } else if words.count >= 3, let value = Double(words[words.count - 2]),
            let found = PortionUnit.named(FoodNameTokenizer.singular(words[words.count - 1])), found.words == 1
        {
            quantity = value
            unit = found.unit
            written = true
            words.removeLast(2)
        }
        let phrase = words.filter { !Self.fillerWords.contains($0) }.joined(separator: " ")
        guard !phrase.isEmpty, quantity > 0, quantity.isFinite else { return nil }
        return ParsedPortion(quantity: quantity, unit: unit, foodPhrase: phrase, quantityWritten: written)
    }

    /// Lower case, vulgar fractions spelt out, "200g" split into "200 g", brackets and stray punctuation removed.
    static func normalise(_ text: String) -> String {
        var result = ""
        var previous: Character = " "
        for character in text.lowercased() {
            if let fraction = vulgarFractions[character] {
                result += (previous.isNumber ? " " : "") + fraction + " "
                previous = " "
                continue
            }
            let mapped: Character = "()[]{}!?:\"*".contains(character) ? " " : character
            if previous.isNumber && mapped.isLetter { result.append(" ") }
            result.append(mapped)
            previous = mapped
        }
        return result.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    private static let vulgarFractions: [Character: String] = [
        "½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅛": "1/8",
    ]
    private static let fillerWords: Set<String> = ["some", "of", "my", "fresh", "about", "approx", "approximately", "around"]
}
