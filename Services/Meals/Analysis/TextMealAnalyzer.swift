import FoodData

/// Analyses a written meal fully offline: parses the portions, matches each to the food table and weighs it.
/// Phrases that match no food are returned apart (never guessed into the totals).
struct TextMealAnalyzer: Sendable {
    let catalog: FoodCatalog

    /// Items for the foods the text names, and the phrases that matched nothing.
    func analyze(_ text: String) -> (drafts: [MealItemDraft], unrecognised: [String]) {
        let catalog = self.catalog
        let parser = TextMealParser { phrase in (catalog.bestMatch(for: phrase)?.relevance ?? 0) >= 1.0 }
        var drafts: [MealItemDraft] = []
        var unrecognised: [String] = []
        for portion in parser.parse(text) {
            guard let match = catalog.bestMatch(for: portion.foodPhrase) else {
                unrecognised.append(portion.foodPhrase)
                continue
            }
            let resolution = PortionResolver.resolve(portion, food: match.food)
            drafts.append(
                .fromTable(
                    match.food, name: portion.foodPhrase, amount: portion.quantity, unit: resolution.unit, grams: resolution.grams,
                    confidence: resolution.certainty * Self.matchConfidence(match.relevance)))
        }
        return (drafts, unrecognised)
    }

    /// How sure a search match is: full at a relevance of 1.2 (every word, in the name's first part), less below.
    static func matchConfidence(_ relevance: Double) -> Double {
        min(1, max(0.3, relevance / 1.2))
    }
}
