import FoodData
import Foundation
import Logging

/// The foods as the routes use them: the in-memory USDA catalog (grounding, portions), every nutrient of one table
/// food, and the packaged products meals keeps a copy of (`FoodCatalogLoader` in the service, a small catalog and
/// products in memory in router tests).
protocol FoodCatalogSource: Sendable {
    /// The catalog, or 503 while it is still loading.
    func catalog() throws -> FoodCatalog

    /// Every nutrient of one food per 100 g, by the table's names; nil when there is no such food.
    func nutrients(of id: String, logger: Logger) async throws -> [String: Double]?

    /// The packaged products with these ids that meals knows of (from `food.product_changed`).
    func products(_ ids: Set<UUID>, logger: Logger) async throws -> [UUID: PackagedProduct]
}

/// What client-written items may name: the catalog's table foods and the products they name.
struct ItemFoods: Sendable {
    var catalog: FoodCatalog
    var products: [UUID: PackagedProduct] = [:]
}

extension FoodCatalogSource {
    /// The catalog and the products `requests` name, read once for all of them.
    func itemFoods(for requests: [ItemRequest], logger: Logger) async throws -> ItemFoods {
        let ids = Set(requests.compactMap(\.productId))
        return ItemFoods(catalog: try catalog(), products: try await products(ids, logger: logger))
    }
}
