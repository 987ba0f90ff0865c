import FoodData
import Logging

/// The food table as the routes use it: the in-memory catalog (search, grounding, portions) and every nutrient of one
/// food (`FoodCatalogLoader` in the service, a small catalog in router tests).
protocol FoodCatalogSource: Sendable {
    /// The catalog, or 503 while it is still loading.
    func catalog() throws -> FoodCatalog

    /// Every nutrient of one food per 100 g, by the table's names; nil when there is no such food.
    func nutrients(of id: String, logger: Logger) async throws -> [String: Double]?
}
