/// The unit of a portion as a person writes it: a mass, a volume, or a household measure the food table
/// knows for each food ("slice", "large", "cup"), some of which also have a standard volume to fall back on.
enum PortionUnit: Equatable, Sendable {
    case mass(name: String, gramsPerUnit: Double)
    case volume(name: String, millilitresPerUnit: Double)
    /// A measure looked up among the food's own (`word` is its singular name); `millilitres` when it has a standard volume.
    case household(word: String, millilitres: Double?)

    /// Whether the unit is a household measure (a word that can also name a food, like "egg" or "cookie").
    var isHousehold: Bool {
        if case .household = self { return true }
        return false
    }

    /// How the unit is shown on an item ("g", "ml", "slice").
    var name: String {
        switch self {
        case .mass(let name, _), .volume(let name, _): name
        case .household(let word, _): word
        }
    }

    /// The unit a word (or two, like "fl oz") names, if any; words are already singular and lower-case.
    static func named(_ word: String, next: String? = nil) -> (unit: PortionUnit, words: Int)? {
        if word == "fl" || word == "fluid", next == "oz" || next == "ounce" {
            return (.volume(name: "fl oz", millilitresPerUnit: 29.5735), 2)
        }
        if let unit = units[word] { return (unit, 1) }
        return nil
    }

    private static let units: [String: PortionUnit] = {
        var units: [String: PortionUnit] = [:]
        for word in ["g", "gr", "gram", "gramme"] { units[word] = .mass(name: "g", gramsPerUnit: 1) }
        for word in ["kg", "kilo", "kilogram"] { units[word] = .mass(name: "kg", gramsPerUnit: 1000) }
        for word in ["oz", "ounce"] { units[word] = .mass(name: "oz", gramsPerUnit: 28.3495) }
        for word in ["lb", "lbs", "pound"] { units[word] = .mass(name: "lb", gramsPerUnit: 453.592) }
        for word in ["ml", "millilitre", "milliliter"] { units[word] = .volume(name: "ml", millilitresPerUnit: 1) }
        for word in ["cl", "centilitre", "centiliter"] { units[word] = .volume(name: "cl", millilitresPerUnit: 10) }
        for word in ["dl", "decilitre", "deciliter"] { units[word] = .volume(name: "dl", millilitresPerUnit: 100) }
        for word in ["l", "litre", "liter"] { units[word] = .volume(name: "l", millilitresPerUnit: 1000) }
        units["cup"] = .household(word: "cup", millilitres: 236.6)
        units["mug"] = .household(word: "cup", millilitres: 300)
        for word in ["tbsp", "tablespoon", "tbs", "tbl"] { units[word] = .household(word: "tbsp", millilitres: 14.79) }
        for word in ["tsp", "teaspoon"] { units[word] = .household(word: "tsp", millilitres: 4.93) }
        units["spoon"] = .household(word: "tbsp", millilitres: 14.79)
        units["glass"] = .household(word: "glass", millilitres: 250)
        units["can"] = .household(word: "can", millilitres: 355)
        units["bottle"] = .household(word: "bottle", millilitres: 500)
        for word in [
            "slice", "piece", "serving", "portion", "bowl", "plate", "handful", "stick", "pat", "clove", "leaf", "stalk",
            "large", "medium", "small", "jumbo", "whole", "fillet", "breast", "thigh", "wing", "drumstick", "link", "patty",
            "scoop", "bar", "packet", "package", "container", "egg", "fruit", "wedge", "strip", "sprig", "head", "ear",
            "spear", "floret", "bun", "roll", "muffin", "cookie", "tortilla", "bagel", "sandwich", "square", "chop", "steak",
        ] {
            units[word] = .household(word: word, millilitres: nil)
        }
        return units
    }()
}
