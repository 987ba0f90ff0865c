import Foundation

/// Splits food names and queries into comparable words: lower-case, letters and digits only, plurals made singular.
public enum FoodNameTokenizer {
    /// The words of `text` in order, each in singular form ("Eggs, whole-wheat" → ["egg", "whole", "wheat"]).
    public static func words(_ text: String) -> [String] {
        asciiWords(text) ?? unicodeWords(text)
    }

    /// `words(_:)` of an ASCII text, read byte by byte; nil when `text` is not ASCII. The same words as
    /// `unicodeWords(_:)` (ASCII letters and digits are the only ASCII alphanumerics), several times faster, which is
    /// most of the catalog's start-up in a debug build (8,800 names, each read twice).
    public static func asciiWords(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var words: [String] = []
            var current: [UInt8] = []
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                let lower = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                if (lower >= 0x61 && lower <= 0x7A) || (lower >= 0x30 && lower <= 0x39) {
                    current.append(lower)
                } else if !current.isEmpty {
                    words.append(singular(String(decoding: current, as: UTF8.self)))
                    current.removeAll(keepingCapacity: true)
                }
            }
            if !current.isEmpty { words.append(singular(String(decoding: current, as: UTF8.self))) }
            return words
        }
    }

    /// `words(_:)` of any text: lower-cased, split at every scalar that is not a letter or digit.
    public static func unicodeWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for scalar in text.lowercased().unicodeScalars {
            if CharacterSet.foodWordCharacters.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(singular(current))
                current = ""
            }
        }
        if !current.isEmpty { words.append(singular(current)) }
        return words
    }

    /// A crude English singular that is right for the words of a food table: berries → berry,
    /// tomatoes → tomato, peaches → peach, eggs → egg; leaves "hummus", "asparagus", "swiss", "bass" alone.
    public static func singular(_ word: String) -> String {
        guard word.count > 3, word.hasSuffix("s"), !word.allSatisfy(\.isNumber) else { return word }
        if let irregular = irregularPlurals[word] { return irregular }
        for ending in ["ss", "us", "is", "ous"] where word.hasSuffix(ending) { return word }
        if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        for ending in ["ches", "shes", "xes", "oes", "sses"] where word.hasSuffix(ending) { return String(word.dropLast(2)) }
        return String(word.dropLast())
    }

    private static let irregularPlurals: [String: String] = [
        "leaves": "leaf", "loaves": "loaf", "halves": "half", "knives": "knife", "shelves": "shelf",
        "cookies": "cookie", "brownies": "brownie", "smoothies": "smoothie", "pies": "pie", "fries": "fry",
        "potatoes": "potato", "tomatoes": "tomato", "anchovies": "anchovy", "oats": "oat", "molasses": "molasses",
        "lentils": "lentil", "chives": "chive", "olives": "olive", "grapes": "grape", "noodles": "noodle",
    ]
}

extension CharacterSet {
    /// Letters and digits: everything else separates words.
    fileprivate static let foodWordCharacters = CharacterSet.alphanumerics
}
