import AsyncHTTPClient
import BackendKit
import Configuration
import EventContracts
import Foundation
import Kafka
import Logging
import Metrics
import PostgresSupport
import ServiceDefaults

/// The composition root of the sharing service: creates every concrete client and wires the routes.
/// Owns schema `sharing`; publishes nothing; consumes `meal.analyzed`, `meal.consumed`, `meal.deleted`,
/// `user.profile_updated` (display names) and `user.deleted`. `now` decides expiry; tests pass their own, and their own
/// `arrivals` to see which share requests wait for a meal.
func buildApplication(
    config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, arrivals: MealArrivals? = nil
) throws -> BackendApplication {
    let settings = try SharingSettings(config: config)
    let arrivals = arrivals ?? MealArrivals(capacity: settings.mealWaitMaxWaiters, perUser: settings.mealWaitMaxPerUser)
    let infrastructure = try ServiceInfrastructure(
        name: "sharing", config: config, publishes: [], uses: SharingEventHandler.topics, consumes: true,
        kitTables: [Migration.idempotencyKeys],
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let client = infrastructure.postgres
    let renderer = try SharedPageRenderer.bundled()
    let rasteriser = CardRasteriser(settings: try CardRasteriserSettings(config: config), logger: logger)

    let meals = MealSnapshotRepository()
    let links = ShareLinkRepository(client: client)
    if settings.photoEncryptionKeys == nil {
        logger.warning("SHARING_PHOTO_ENCRYPTION_KEY is not set: links cannot include photos (503 photos_not_configured)")
    }
    let photos = MealPhotoRepository(client: client, cipher: settings.photoEncryptionKeys.map(SealingCipher.init(keys:)))
    let store = PostgresSharingStore(client: client, meals: meals, links: links, photos: photos, renders: CardRenderRepository(client: client))
    let photoUpkeep = infrastructure.periodicJob(name: "photo-upkeep", every: settings.photoUpkeepInterval) { logger in
        try await photos.sealDue(logger: logger)
    }
    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "sharing.consumer.group", default: "sharing"), topics: SharingEventHandler.topics,
        handler: SharingEventHandler(meals: meals, names: DisplayNameRepository(), links: links, arrivals: arrivals))
    var mealsClientConfiguration = HTTPClient.Configuration(timeout: .init(connect: .seconds(2)), decompression: .disabled)
    mealsClientConfiguration.tracing.tracer = nil  // the meals client makes its own, named span (`HTTPClientSpan`)
    let mealsClient = HTTPClientService(configuration: mealsClientConfiguration)
    let views = ViewCounter(store: store, interval: settings.viewWriteInterval, logger: logger)
    let router = ServiceRuntime.makeRouter(service: "sharing", checks: infrastructure.readinessChecks)
    // `POST /api/share/meal/:id` with `Idempotency-Key` makes one link however often it is replayed.
    router.add(middleware: IdempotencyMiddleware(client: infrastructure.postgres, maxRequestBytes: 65_536))
    SharingRoutes(
        store: store,
        meals: MealsClient(
            client: mealsClient.client, mealsURL: settings.mealsURL, timeout: settings.photoTimeout, maxBytes: settings.maxPhotoBytes),
        views: views, renderer: renderer, rasteriser: rasteriser, publicBaseURL: settings.publicBaseURL,
        viewCacheLinks: config.int(forKey: "sharing.views.cache.links", default: 10_000),
        mealWait: MealWait(
            arrivals: arrivals, limit: settings.mealWait, recheck: settings.mealWaitRecheck), now: now
    ).addRoutes(to: router)
    ExportController(part: SharingExportTables.part, pool: client).addRoutes(to: router)
    return BackendApplication(
        infrastructure: infrastructure,
        services: [
            inbox, mealsClient, rasteriser, views, photoUpkeep,
            infrastructure.syncPurge(try SyncSettings(config: config), tombstones: false, idempotencyKeys: true),
        ],
        router: router,
        http: try HTTPServerSettings(config: config, defaultPort: 8085), logger: logger)
}
