import FoodData
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import Synchronization

/// Loads the food catalog once the schema is migrated: imports the data file when one is configured and
/// new, then reads the table into memory. Until then (a few seconds at start) food-dependent requests
/// answer 503 and the service reports not ready.
final class FoodCatalogLoader: Service, FoodCatalogSource {
    private let importer: FoodImporter
    private let repository: FoodRepository
    private let dataFile: URL?
    private let startAfter: StartupLatch
    private let logger: Logger
    private let loaded = Mutex<FoodCatalog?>(nil)

    init(importer: FoodImporter, repository: FoodRepository, dataFile: URL?, startAfter: StartupLatch, logger: Logger) {
        self.importer = importer
        self.repository = repository
        self.dataFile = dataFile
        self.startAfter = startAfter
        self.logger = logger
    }

    func run() async throws {
        await startAfter.wait()
        do {
            try await cancelWhenGracefulShutdown {
                try await Backoff.retrying(
                    Backoff(initial: .milliseconds(500), maximum: .seconds(10)),
                    onFailure: { error, wait in
                        self.logger.error(
                            "food table not loaded; retrying", metadata: ["error": .string(LogSafeError.describe(error)), "retry_in": "\(wait)"])
                    }
                ) { try await self.load() }
            }
        } catch is CancellationError {}
        try? await gracefulShutdown()
    }

    /// Imports (if needed) and loads the catalog now.
    func load() async throws {
        let started = ContinuousClock.now
        if let dataFile { try await importer.importIfNeeded(from: dataFile, logger: logger) }
        let read = ContinuousClock.now
        let foods = try await repository.allFoods(logger: logger)
        let indexed = ContinuousClock.now
        let catalog = FoodCatalog(foods: foods)
        loaded.withLock { $0 = catalog }
        logger.info(
            "food catalog loaded",
            metadata: [
                "foods": "\(catalog.foods.count)", "import_check": "\(read - started)", "read": "\(indexed - read)",
                "index": "\(ContinuousClock.now - indexed)",
            ])
        if catalog.foods.isEmpty {
            logger.warning("the food table is empty: set MEALS_FOOD_DATA_FILE (deploy/setup.sh writes .local/foods/usda_sr24.jsonl)")
        }
    }

    /// Whether the catalog is in memory (a readiness check).
    var isLoaded: Bool { loaded.withLock { $0 != nil } }

    func nutrients(of id: String, logger: Logger) async throws -> [String: Double]? {
        try await repository.nutrients(of: id, logger: logger)
    }

    func products(_ ids: Set<UUID>, logger: Logger) async throws -> [UUID: PackagedProduct] {
        try await ProductCopyRepository().products(ids, client: repository.client, logger: logger)
    }

    func namedInMeals(_ ids: Set<UUID>, of userId: UUID, logger: Logger) async throws -> Set<UUID> {
        try await ProductCopyRepository().namedInMeals(ids, of: userId, client: repository.client, logger: logger)
    }

    func catalog() throws -> FoodCatalog {
        guard let catalog = loaded.withLock({ $0 }) else {
            throw APIError.unavailable("The food table is still loading; try again in a few seconds.", retryAfterSeconds: 2)
        }
        return catalog
    }
}
