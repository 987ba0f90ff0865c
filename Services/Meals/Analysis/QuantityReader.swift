/// Reads the quantity at the start of a portion's words: "2", "1.5", "1/2", "1 1/2", "2-3" (the middle),
/// number words up to twelve, "a"/"an" (one), "half", "a half", "a quarter", "a couple of", "a few", "a dozen".
struct QuantityReader {
    var words: [String]

    /// The value and how many words it took, or nil when the words do not start with a quantity.
    func read() -> (value: Double, words: Int)? {
        guard let first = words.first else { return nil }
        if let value = Self.number(first) {
            if words.count > 1, let fraction = Self.fraction(words[1]), value == value.rounded(), !first.contains("/") {
                return (value + fraction, 2)
            }
            return (value, 1)
        }
        if first == "a" || first == "an" {
            if words.count > 2, let multiple = Self.phrases[words[1] + " " + words[2]] { return (multiple, 3) }
            if words.count > 1, let multiple = Self.phrases[words[1]] {
                return (multiple, words.count > 2 && words[2] == "of" ? 3 : 2)
            }
            return (1, 1)
        }
        if first == "half" {
            return (0.5, words.count > 1 && (words[1] == "a" || words[1] == "an") ? 2 : 1)
        }
        if let value = Self.numberWords[first] { return (value, 1) }
        return nil
    }

    /// A decimal, a fraction like 3/4, or a range like 2-3 (its middle).
    static func number(_ word: String) -> Double? {
        if let fraction = fraction(word) { return fraction }
        if let value = Double(word), value.isFinite, value >= 0 { return value }
        let range = word.split(separator: "-")
        if range.count == 2, let low = Double(range[0]), let high = Double(range[1]), low >= 0, high >= low {
            return (low + high) / 2
        }
        return nil
    }

    private static func fraction(_ word: String) -> Double? {
        let parts = word.split(separator: "/")
        guard parts.count == 2, let top = Double(parts[0]), let bottom = Double(parts[1]), bottom > 0 else { return nil }
        return top / bottom
    }

    private static let phrases: [String: Double] = [
        "half": 0.5, "quarter": 0.25, "third": 1.0 / 3, "couple": 2, "couple of": 2, "few": 3, "dozen": 12, "pair of": 2,
    ]
    private static let numberWords: [String: Double] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "quarter": 0.25, "dozen": 12, "couple": 2, "several": 3,
    ]
}
