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
/// retention jobs, the photo clean-up and the photo upkeep: sealing, re-sealing, thumbnails of older photos);
/// publishes `meal.analyzed`, `meal.consumed`, `meal.deleted`; consumes
/// `user.profile_updated` and `user.deleted`. `now` is the clock of every stored time; tests pass their own, and
/// their own `profileArrivals` to see which writes wait for a new user's profile.
func buildApplication(
    config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, profileArrivals: ProfileArrivals? = nil
) async throws -> BackendApplication {
    let settings = try MealsSettings(config: config)
    let infrastructure = try ServiceInfrastructure(
        name: "meals", config: config, publishes: [.mealAnalyzed, .mealConsumed, .mealDeleted], uses: MealsEventHandler.topics,
        consumes: true, kitTables: [Migration.sync, Migration.idempotencyKeys],
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let client = infrastructure.postgres

    let meals = MealRepository()
    let customMeals = CustomMealRepository()
    let profiles = ProfileRepository()
    let profileArrivals =
        profileArrivals ?? ProfileArrivals(capacity: settings.profileWaitMaxWaiters, perUser: settings.profileWaitMaxPerUser)
    let callerProfiles = CallerProfiles(
        repository: profiles, client: client, arrivals: profileArrivals, limit: settings.profileWait, recheck: settings.profileWaitRecheck)
    let visionKeys = VisionKeyRepository()
    let foodRepository = FoodRepository(client: client)
    let foods = FoodCatalogLoader(
        importer: FoodImporter(client: client), repository: foodRepository, dataFile: settings.foodDataFile,
        startAfter: infrastructure.migrated, logger: logger)
    if settings.photoEncryptionKeys == nil {
        logger.warning("MEALS_PHOTO_ENCRYPTION_KEY is not set: photos cannot be stored or shown (503 photos_not_configured)")
    }
    let thumbnailer = PhotoThumbnailer(settings: settings.thumbnails, logger: logger)
    let vault = PhotoVault(cipher: settings.photoEncryptionKeys.map(SealingCipher.init(keys:)), thumbnailer: thumbnailer)
    let store = PostgresMealStore(client: client, meals: meals, photos: vault, now: now)

    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "meals.consumer.group", default: "meals"), topics: MealsEventHandler.topics,
        handler: MealsEventHandler(
            profiles: profiles, meals: meals, customMeals: customMeals, visionKeys: visionKeys, arrivals: profileArrivals))

    let syncSettings = try SyncSettings(config: config)
    let retention = MealHistoryRetention(client: client, meals: meals, profiles: profiles, store: store)
    let retentionJob = infrastructure.periodicJob(name: "history-retention", every: syncSettings.purgeInterval) { logger in
        try await retention.purge(now: now(), logger: logger)
    }
    let photoRetention = MealPhotoRetention(client: client, meals: meals, profiles: profiles, store: store)
    let photoRetentionJob = infrastructure.periodicJob(name: "photo-retention", every: syncSettings.purgeInterval) { logger in
        try await photoRetention.purge(now: now(), logger: logger)
    }
    let photoUpkeep = MealPhotoUpkeep(client: client, vault: vault)
    let photoUpkeepJob = infrastructure.periodicJob(name: "photo-upkeep", every: settings.photoUpkeepInterval) { logger in
        try await photoUpkeep.run(logger: logger)
    }
    var services: [any Service] = [
        foods, inbox, infrastructure.syncPurge(syncSettings, idempotencyKeys: true), retentionJob, photoRetentionJob, thumbnailer,
        photoUpkeepJob,
    ]
    // Redirects are not followed: a user's provider could otherwise send the service on to an address the base URL
    // guard (`VisionBaseURLPolicy`) refuses. A connection that cannot be made fails at once instead of being tried again
    // until the time limit: the vision client makes its own retries, and a key check should not keep the user waiting.
    var httpConfiguration = HTTPClient.Configuration()
    httpConfiguration.redirectConfiguration = .disallow
    httpConfiguration.connectionPool.retryConnectionEstablishment = false
    let httpClient = HTTPClientService(configuration: httpConfiguration)
    services.insert(httpClient, at: 0)
    var serverAnalyzer: PhotoMealAnalyzer?
    if let vision = settings.vision {
        serverAnalyzer = PhotoMealAnalyzer(
            provider: OpenAICompatibleVisionClient(settings: vision, httpClient: httpClient.client, logger: logger))
        logger.info("photo analysis enabled", metadata: ["model": .string(vision.model)])
    } else {
        logger.info("server photo analysis disabled: MEALS_VISION_BASE_URL is not set; users' own keys and text analysis work")
    }
    if settings.visionKeyEncryptionKeys == nil {
        logger.warning("MEALS_VISION_KEY_ENCRYPTION_KEY is not set: users cannot store their own vision keys")
    }
    let keyVault = VisionKeyVault(
        store: PostgresVisionKeyStore(client: client, repository: visionKeys),
        cipher: settings.visionKeyEncryptionKeys.map(VisionKeyCipher.init(keys:)), now: now)
    let baseURLPolicy = VisionBaseURLPolicy(allowedPrivateHosts: settings.visionUserAllowedHosts)
    let analyzers = PhotoAnalyzerChooser(
        server: serverAnalyzer, vault: keyVault,
        userProviders: UserVisionProviders(template: settings.vision, httpClient: httpClient.client, logger: logger), policy: baseURLPolicy)

    if settings.photoURLKeys == nil {
        logger.warning("MEALS_PHOTO_URL_KEY is not set: photo URLs are signed with a key of this process only")
    }
    let photos = PhotoURLSigner(
        keys: settings.photoURLKeys ?? .random(id: "process"), lifetime: settings.photoURLLifetime, now: now)
    let checks = infrastructure.readinessChecks + [ClosureReadinessCheck(name: "foods") { foods.isLoaded }]
    let router = ServiceRuntime.makeRouter(service: "meals", checks: checks)
    // Photos (up to MEALS_UPLOAD_MAX_BYTES, with room for the multipart or base64 wrapping) or imports are the largest bodies.
    router.add(
        middleware: IdempotencyMiddleware(
            client: client, maxRequestBytes: max(settings.maxImageBytes * 3 / 2 + 65_536, SyncImportLimits.maximumBodyBytes)))
    MealsRoutes(
        meals: store, customMeals: PostgresCustomMealStore(client: client, customMeals: customMeals, now: now),
        changeFeed: PostgresMealsChangeFeed(client: client, meals: meals, customMeals: customMeals), profiles: callerProfiles, foods: foods,
        photoReader: AnalysisRequestReader(maxImageBytes: settings.maxImageBytes), photos: photos, analyzers: analyzers,
        visionKeys: keyVault,
        keyCheck: VisionKeyCheck(httpClient: httpClient.client, timeout: settings.vision?.requestTimeout ?? .seconds(20)),
        baseURLPolicy: baseURLPolicy, visionUsage: PostgresVisionUsageStore(client: client, repository: VisionUsageRepository()),
        visionPrices: settings.visionPrices, now: now
    ).addRoutes(to: router)
    ExportController(part: MealsExportTables.part, pool: client).addRoutes(to: router)

    return BackendApplication(
        infrastructure: infrastructure, services: services, router: router, http: try HTTPServerSettings(config: config, defaultPort: 8082),
        logger: logger)
}
