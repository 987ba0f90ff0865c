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

    /// Which of `ids` the meals of `userId` name.
    func namedInMeals(_ ids: Set<UUID>, of userId: UUID, logger: Logger) async throws -> Set<UUID>
}

/// What client-written items may name: the catalog's table foods and the products they name.
struct ItemFoods: Sendable {
    var catalog: FoodCatalog
    var products: [UUID: PackagedProduct] = [:]
    /// The held products among them that the caller logged before, and so may log again.
    var loggedBefore: Set<UUID> = []

    /// The product `id` if `caller` may log it: an offered one, or a held one the caller wrote or logged before.
    func loggable(_ id: UUID, by caller: UUID) -> PackagedProduct? {
        guard let product = products[id], product.isLoggable(by: caller) || loggedBefore.contains(id) else { return nil }
        return product
    }
}

extension FoodCatalogSource {
    /// The catalog and the products `requests` name, read once for all of them; for `caller` (who writes the items),
    /// also which held products among them they logged before (asked only when one is held).
    func itemFoods(for requests: [ItemRequest], caller: UUID? = nil, logger: Logger) async throws -> ItemFoods {
        let ids = Set(requests.compactMap(\.productId))
        var foods = ItemFoods(catalog: try catalog(), products: try await products(ids, logger: logger))
        if let caller {
            let held = Set(foods.products.values.filter { !$0.isLoggable(by: caller) }.map(\.id))
            foods.loggedBefore = try await namedInMeals(held, of: caller, logger: logger)
        }
        return foods
    }
}
