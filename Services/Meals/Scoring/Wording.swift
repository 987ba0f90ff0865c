/// The small pieces every scoring sentence is built from: percents, amounts, food names and lists.
enum Wording {
    /// `value` rounded to a whole number that can always be shown: not-a-number reads 0 and the magnitude is
    /// capped, because `Int(_:)` traps (and would end the process) on anything else. Portions of a thousandth of a
    /// gram give per-100-g figures in the billions, or infinite ones.
    static func whole(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(Swift.min(1e15, Swift.max(-1e15, value)).rounded())
    }

    /// A 0...1 share as a whole percent ("74%"); shares that round to nothing read "under 1%".
    static func percent(_ share: Double) -> String {
        let value = whole(share * 100)
        return value == 0 && share > 0 ? "under 1%" : "\(value)%"
    }

    /// An amount with one decimal below 10 and none from 10 ("2.6", "0.4", "21").
    static func amount(_ value: Double) -> String {
        let rounded = value < 10 ? (value * 10).rounded() / 10 : value.rounded()
        return rounded == rounded.rounded() || !rounded.isFinite ? String(whole(rounded)) : String(rounded)
    }

    /// A name that opens a sentence ("cheddar cheese" → "Cheddar cheese").
    static func opening(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// A name inside a sentence: a leading capital is lowered unless the name looks like an acronym
    /// ("Broccoli" → "broccoli", "BLT" stays).
    static func inline(_ name: String) -> String {
        let characters = Array(name)
        guard characters.count > 1, characters[0].isUppercase, !characters[1].isUppercase else { return name }
        return characters[0].lowercased() + String(characters.dropFirst())
    }

    /// Foods with why they matter, once per name and at most three ("cheddar cheese (dairy), ham (meat) and 2 more").
    static func foods(_ items: [ScorableItem], noting note: (ScorableItem) -> String) -> String {
        var seen = Set<String>()
        let distinct = items.filter { seen.insert($0.name.lowercased()).inserted }
        let named = distinct.prefix(3).map { "\(inline($0.name)) (\(note($0)))" }
        return list(named + (distinct.count > 3 ? ["\(distinct.count - 3) more"] : []))
    }

    /// Items joined the English way: "a", "a and b", "a, b and c".
    static func list(_ parts: [String]) -> String {
        switch parts.count {
        case 0: ""
        case 1: parts[0]
        default: parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        }
    }
}
