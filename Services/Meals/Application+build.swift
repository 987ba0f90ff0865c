import AsyncHTTPClient
import BackendKit
import Configuration
import EventContracts
import Foundation
import Kafka
import Logging
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import SyncContracts

/// The composition root of the meals service: creates every concrete client and wires the routes.
/// Owns schema `meals` (with the sync kit tables and `Idempotency-Key` replays; runs the sync purge and history
/// retention jobs); publishes `meal.analyzed`, `meal.consumed`, `meal.deleted`; consumes
/// `user.profile_updated` and `user.deleted`. `now` is the clock of every stored time; tests pass their own.
func buildApplication(config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) async throws
    -> BackendApplication
{
    let settings = try MealsSettings(config: config)
    let infrastructure = try ServiceInfrastructure(
        name: "meals", config: config, publishes: [.mealAnalyzed, .mealConsumed, .mealDeleted], uses: MealsEventHandler.topics,
        consumes: true, kitTables: [Migration.sync, Migration.idempotencyKeys],
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let client = infrastructure.postgres

    let meals = MealRepository()
    let customMeals = CustomMealRepository()
    let profiles = ProfileRepository()
    let foodRepository = FoodRepository(client: client)
    let foods = FoodCatalogLoader(
        importer: FoodImporter(client: client), repository: foodRepository, dataFile: settings.foodDataFile,
        startAfter: infrastructure.migrated, logger: logger)
    let store = MealStore(client: client, meals: meals, now: now)
    let customMealStore = CustomMealStore(client: client, customMeals: customMeals, now: now)

    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "meals.consumer.group", default: "meals"), topics: MealsEventHandler.topics,
        handler: MealsEventHandler(profiles: profiles, meals: meals, customMeals: customMeals))

    let syncSettings = try SyncSettings(config: config)
    let retention = MealHistoryRetention(client: client, meals: meals, profiles: profiles, store: store)
    let retentionJob = PeriodicJob(
        name: "history-retention", every: syncSettings.purgeInterval, startAfter: infrastructure.migrated, logger: logger
    ) { logger in try await retention.purge(now: now(), logger: logger) }
    var services: [any Service] = [foods, inbox, infrastructure.syncPurge(syncSettings, idempotencyKeys: true), retentionJob]
    var photoAnalyzer: PhotoMealAnalyzer?
    if let vision = settings.vision {
        let httpClient = HTTPClientService()
        services.insert(httpClient, at: 0)
        photoAnalyzer = PhotoMealAnalyzer(
            provider: OpenAICompatibleVisionClient(settings: vision, httpClient: httpClient.client, logger: logger))
        logger.info("photo analysis enabled", metadata: ["model": .string(vision.model)])
    } else {
        logger.info("photo analysis disabled: MEALS_VISION_BASE_URL is not set; text analysis works offline")
    }

    let checks = infrastructure.readinessChecks + [ClosureReadinessCheck(name: "foods") { foods.isLoaded }]
    let router = ServiceRuntime.makeRouter(service: "meals", checks: checks)
    // Photos (up to MEALS_UPLOAD_MAX_BYTES, with room for the multipart or base64 wrapping) or imports are the largest bodies.
    router.add(
        middleware: IdempotencyMiddleware(
            client: client, maxRequestBytes: max(settings.maxImageBytes * 3 / 2 + 65_536, SyncImportLimits.maximumBodyBytes)))
    FoodController(foods: foods, repository: foodRepository).addRoutes(to: router)
    AnalyzeController(
        client: client, store: store, profiles: profiles, foods: foods,
        reader: AnalysisRequestReader(maxImageBytes: settings.maxImageBytes), photoAnalyzer: photoAnalyzer, now: now
    ).addRoutes(to: router)
    let maker = ManualMealMaker(foods: foods, now: now)
    MealController(client: client, meals: meals, store: store, profiles: profiles, foods: foods, maker: maker, now: now).addRoutes(to: router)
    CustomMealController(
        client: client, customMeals: customMeals, customMealStore: customMealStore, store: store, profiles: profiles, foods: foods, now: now
    ).addRoutes(to: router)
    MealsSyncController(client: client, meals: meals, customMeals: customMeals, foods: foods).addRoutes(to: router)
    MealsImportController(client: client, store: store, profiles: profiles, maker: maker).addRoutes(to: router)
    ExportController(part: MealsExportTables.part, pool: client).addRoutes(to: router)

    return BackendApplication(
        infrastructure: infrastructure, services: services, router: router, http: try HTTPServerSettings(config: config, defaultPort: 8082),
        logger: logger)
}
