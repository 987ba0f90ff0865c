import BackendKit
import Configuration
import EventContracts
import Foundation
import Kafka
import Logging
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// The composition root of the metrics service: creates every concrete client and wires the routes.
/// Owns schema `metrics` (with the sync kit tables and `Idempotency-Key` replays; runs the sync purge and history
/// retention jobs); publishes `weight.logged` and `water.logged`; consumes `user.profile_updated` (the user's zone and
/// preferred unit) and `user.deleted`. `now` is the clock of every stored time; tests pass their own.
func buildApplication(config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws
    -> BackendApplication
{
    let infrastructure = try ServiceInfrastructure(
        name: "metrics", config: config, publishes: [.weightLogged, .waterLogged], uses: MetricsEventHandler.topics, consumes: true,
        kitTables: [Migration.sync, Migration.idempotencyKeys], migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil),
        logger: logger)
    let client = infrastructure.postgres
    let days = DailyMetricsRepository()
    let profiles = MetricsProfileRepository()
    let water = WaterEntryRepository()

    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "metrics.consumer.group", default: "metrics"), topics: MetricsEventHandler.topics,
        handler: MetricsEventHandler(profiles: profiles, days: days, water: water))

    let http = try HTTPServerSettings(config: config, defaultPort: 8083)
    let syncSettings = try SyncSettings(config: config)
    let retention = HistoryRetentionPurge(client: client, days: days, water: water, profiles: profiles)
    let retentionJob = infrastructure.periodicJob(name: "history-retention", every: syncSettings.purgeInterval) { logger in
        try await retention.purge(now: now(), logger: logger)
    }
    let router = ServiceRuntime.makeRouter(service: "metrics", checks: infrastructure.readinessChecks)
    router.add(middleware: IdempotencyMiddleware(client: client, maxRequestBytes: max(http.maxBodyBytes, SyncImportLimits.maximumBodyBytes)))
    let store = PostgresBodyMetricsStore(client: client, days: days, profiles: profiles, water: water, now: now)
    MetricsController(store: store, now: now).addRoutes(to: router)
    WaterController(store: store, now: now).addRoutes(to: router)
    MetricsSyncController(store: store, now: now).addRoutes(to: router)
    MetricsImportController(store: store, now: now).addRoutes(to: router)
    ExportController(part: MetricsExportTables.part, pool: client).addRoutes(to: router)
    return BackendApplication(
        infrastructure: infrastructure, services: [inbox, infrastructure.syncPurge(syncSettings, idempotencyKeys: true), retentionJob],
        router: router,
        http: http,
        logger: logger)
}
