import BackendKit
import Configuration
import EventContracts
import Foundation
import Kafka
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the trends service: creates every concrete client and wires the routes.
/// Owns schema `trends` (read models only); publishes nothing; consumes `meal.analyzed`, `meal.consumed`,
/// `meal.deleted`, `weight.logged`, `water.logged`, `user.profile_updated` and `user.deleted`. `now` decides the user's
/// "today"; tests pass their own.
func buildApplication(config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws
    -> BackendApplication
{
    let infrastructure = try ServiceInfrastructure(
        name: "trends", config: config, publishes: [], uses: TrendsEventHandler.topics, consumes: true,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let client = infrastructure.postgres
    let photoURLs = try TrendsPhotoURLSettings(config: config)
    if photoURLs.keys == nil {
        logger.warning("TRENDS_PHOTO_URL_KEY is not set: a day's history carries no thumbnail URLs")
    }

    let handler = TrendsEventHandler(
        meals: MealProjection(), summaries: DaySummaryProjection(), bodyMetrics: BodyMetricsProjection(), water: WaterProjection(),
        profiles: ProfileProjection(), versions: DataVersionProjection())
    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "trends.consumer.group", default: "trends"), topics: TrendsEventHandler.topics,
        handler: handler)

    let router = ServiceRuntime.makeRouter(service: "trends", checks: infrastructure.readinessChecks)
    TrendsRoutes(
        store: PostgresTrendsStore(client: client), reportCacheUsers: config.int(forKey: "trends.reports.cache.users", default: 10_000),
        photos: photoURLs.signer(now: now), now: now
    ).addRoutes(to: router)
    ExportController(part: TrendsExportTables.part, pool: client).addRoutes(to: router)
    return BackendApplication(
        infrastructure: infrastructure, services: [inbox], router: router, http: try HTTPServerSettings(config: config, defaultPort: 8084),
        logger: logger)
}
