import FoodData
import Foundation

/// Analyses a photo: the vision provider names the foods and their portions, then each is grounded in the
/// food table (nutrients from the table for the model's grams). An item the table does not know, or whose
/// best match disagrees wildly with the model's own estimate (over 3× apart and 150 kcal or more, which
/// means the match is a different food), keeps the model's numbers and is marked `estimate`.
struct PhotoMealAnalyzer: Sendable {
    let provider: any VisionProvider
    /// Whose key pays for the analyses, as the usage is counted: `server`, or the usage id of the user's own key.
    var usageKey = VisionUsageRepository.serverKey

    /// The items seen in `photo`, sent by `caller`; the provider's answers and their tokens go to `tally`. Throws the
    /// provider's `VisionError`.
    func analyze(
        _ photo: PhotoUpload, hint: String?, caller: UUID, catalog: FoodCatalog, tally: TokenTally = TokenTally()
    ) async throws -> [MealItemDraft] {
        try await provider.recognise(photo, hint: hint, caller: caller, tally: tally).map { draft(for: $0, catalog: catalog) }
    }

    func draft(for item: RecognisedItem, catalog: FoodCatalog) -> MealItemDraft {
        if let match = catalog.bestMatch(for: item.name) {
            let fromTable = MealItemDraft.fromTable(
                match.food, name: item.name, amount: item.amount, unit: item.unit, grams: item.grams,
                confidence: item.confidence * TextMealAnalyzer.matchConfidence(match.relevance))
            if Self.agree(fromTable.nutrients.calories, item.estimate.calories) { return fromTable }
        }
        return MealItemDraft(
            name: item.name, amount: item.amount, unit: item.unit, grams: item.grams, food: nil, nutrients: item.estimate,
            confidence: item.confidence * 0.8, source: .estimate)
    }

    private static func agree(_ table: Double, _ model: Double) -> Bool {
        let (low, high) = (min(table, model), max(table, model))
        return high - low < 150 || high <= 3 * low
    }
}
