import FoodData
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import Synchronization

/// The USDA foods as the routes use them: the in-memory catalog (search, one food) and every nutrient of a food
/// (`GenericFoodsLoader` in the service, a small catalog in router tests).
protocol GenericFoods: Sendable {
    /// The catalog, or 503 while it is still loading.
    func catalog() throws -> FoodCatalog

    /// Every nutrient of one food per 100 g by the table's names; nil when there is no such food.
    func nutrients(of id: String) throws -> [String: Double]?
}

/// The USDA table, read from its data file (`FOODS_FOOD_DATA_FILE`, the same JSON-lines file meals imports) into memory
/// once at start; the foods service keeps no copy of it in its schema. Until it is read (about a second) food requests
/// answer 503 and the service reports not ready. A file that cannot be read is retried with back-off and logged.
final class GenericFoodsLoader: Service, GenericFoods {
    private struct Loaded {
        var catalog: FoodCatalog
        var nutrients: [String: [String: Double]]
    }

    private let dataFile: URL?
    private let logger: Logger
    private let loaded = Mutex<Loaded?>(nil)

    init(dataFile: URL?, logger: Logger) {
        self.dataFile = dataFile
        self.logger = logger
    }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await Backoff.retrying(
                    Backoff(initial: .milliseconds(500), maximum: .seconds(10)),
                    onFailure: { error, wait in
                        self.logger.error(
                            "USDA food table not read; retrying", metadata: ["error": .string(LogSafeError.describe(error)), "retry_in": "\(wait)"])
                    }
                ) { try self.load() }
            }
        } catch is CancellationError {}
        try? await gracefulShutdown()
    }

    /// Reads the data file (none: an empty catalog) into memory now.
    func load() throws {
        let started = ContinuousClock.now
        let sources = try dataFile.map(FoodSource.readAll(from:)) ?? []
        let catalog = FoodCatalog(foods: sources.map(FoodRecord.init(source:)))
        let nutrients = Dictionary(sources.map { ($0.id, $0.nutrients) }, uniquingKeysWith: { first, _ in first })
        loaded.withLock { $0 = Loaded(catalog: catalog, nutrients: nutrients) }
        logger.info("USDA food table read", metadata: ["foods": "\(catalog.foods.count)", "duration": "\(ContinuousClock.now - started)"])
        if sources.isEmpty {
            logger.warning("the USDA food table is empty: set FOODS_FOOD_DATA_FILE (deploy/setup.sh writes .local/foods/usda_sr24.jsonl)")
        }
    }

    /// Whether the table is in memory (a readiness check).
    var isLoaded: Bool { loaded.withLock { $0 != nil } }

    func catalog() throws -> FoodCatalog { try current().catalog }

    func nutrients(of id: String) throws -> [String: Double]? { try current().nutrients[id] }

    private func current() throws -> Loaded {
        guard let loaded = loaded.withLock({ $0 }) else {
            throw APIError.unavailable("The food table is still loading; try again in a few seconds.", retryAfterSeconds: 2)
        }
        return loaded
    }
}
