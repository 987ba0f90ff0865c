/// The allergens food labels must declare: the EU's 14 (Regulation 1169/2011, Annex II), which include the US's 9 major
/// ones (tree nuts are `nuts`, soy is `soybeans`, shellfish are `crustaceans` and `molluscs`). Products carry them; the
/// diet score reads them.
public enum Allergen: String, CaseIterable, Codable, Sendable {
    case gluten, crustaceans, eggs, fish, peanuts, soybeans, milk, nuts, celery, mustard, sesame, sulphites, lupin, molluscs

    /// The allergen of an Open Food Facts taxonomy tag (`en:milk`, `en:sulphur-dioxide-and-sulphites`); nil for tags
    /// outside the 14.
    public init?(openFoodFactsTag tag: String) {
        let name = tag.hasPrefix("en:") ? String(tag.dropFirst(3)) : tag
        switch name {
        case "sesame-seeds": self = .sesame
        case "sulphur-dioxide-and-sulphites": self = .sulphites
        case "soy", "soya": self = .soybeans
        case "tree-nuts": self = .nuts
        default:
            guard let allergen = Allergen(rawValue: name) else { return nil }
            self = allergen
        }
    }
}
