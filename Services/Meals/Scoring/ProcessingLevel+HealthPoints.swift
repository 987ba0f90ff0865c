import FoodData

extension ProcessingLevel {
    /// Points out of 100 for how close to whole the food is: whole 100, culinary ingredient 75, processed 50,
    /// ultra-processed 15. Ultra-processed keeps a few points so one item cannot sink a meal on this alone.
    var healthPoints: Int {
        switch self {
        case .unprocessed: 100
        case .culinaryIngredient: 75
        case .processed: 50
        case .ultraProcessed: 15
        }
    }
}
