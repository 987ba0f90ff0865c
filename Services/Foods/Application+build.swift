import AsyncHTTPClient
import BackendKit
import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the foods service: creates every concrete client and wires the routes.
/// Owns schema `foods` (products, their versions and reports, the barcodes Open Food Facts lacked, what it knows of
/// accounts and meals from events); reads the USDA table from its data file into memory; asks Open Food Facts for
/// barcodes it lacks; publishes `food.product_changed`; consumes the meal events, `user.profile_updated` and
/// `user.deleted`. `now` is the clock of every stored time; tests pass their own, and their own `source` in
/// place of Open Food Facts.
func buildApplication(
    config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
) async throws -> BackendApplication {
    let settings = try FoodsSettings(config: config)
    let infrastructure = try ServiceInfrastructure(
        name: "foods", config: config, publishes: [.foodProductChanged], uses: FoodsEventHandler.topics, consumes: true, kitTables: [],
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let stored = PostgresProductStore(client: infrastructure.postgres)
    let answers = BarcodeAnswerCache(lifetime: settings.lookupCacheLifetime, capacity: settings.lookupCacheEntries)
    let products = AnswerForgettingProductStore(base: stored, answers: answers)
    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "foods.consumer.group", default: "foods"), topics: FoodsEventHandler.topics,
        handler: FoodsEventHandler(products: stored, answers: answers, now: now))
    let generic = GenericFoodsLoader(dataFile: settings.foodDataFile, logger: logger)

    // Open Food Facts' own redirects (a code of a sister database) are answers, not hops to follow.
    var httpConfiguration = HTTPClient.Configuration()
    httpConfiguration.redirectConfiguration = .disallow
    httpConfiguration.connectionPool.retryConnectionEstablishment = false
    let httpClient = HTTPClientService(configuration: httpConfiguration)
    let off = settings.openFoodFacts
    if off.enabled {
        logger.info(
            "Open Food Facts look-ups on", metadata: ["base_url": .string(off.baseURL.absoluteString), "per_minute": "\(off.requestsPerMinute)"])
    } else {
        logger.info("Open Food Facts look-ups off (FOODS_OFF_ENABLED=false): barcodes we lack are 404")
    }
    let barcodes = BarcodeLookup(
        store: products, source: off.enabled ? OpenFoodFactsClient(settings: off, httpClient: httpClient.client) : nil,
        refreshAfter: off.refreshAfter, missTTL: off.missTTL, now: now)

    let checks = infrastructure.readinessChecks + [ClosureReadinessCheck(name: "usda_foods") { generic.isLoaded }]
    let router = ServiceRuntime.makeRouter(service: "foods", checks: checks)
    let established = settings.community.establishedAccount
    FoodController(generic: generic, products: products, barcodes: barcodes, answers: answers, established: established, now: now)
        .addRoutes(to: router)
    ProductController(store: products, rules: settings.community, now: now).addRoutes(to: router)
    ExportController(part: FoodsExportTables.part, pool: infrastructure.postgres).addRoutes(to: router)
    return BackendApplication(
        infrastructure: infrastructure, services: [httpClient, generic, inbox], router: router,
        http: try HTTPServerSettings(config: config, defaultPort: 8086),
        adminRoutes: ProductReviewController(store: products, established: established, now: now).routes, logger: logger)
}
