import BackendKit
import Configuration
import EventContracts
import Foundation
import Kafka
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the metrics service: creates every concrete client and wires the routes.
/// Owns schema `metrics`; publishes `weight.logged`; consumes `user.profile_updated` (the user's zone and
/// preferred unit) and `user.deleted`. `now` is the clock of every stored time; tests pass their own.
func buildApplication(config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws
    -> BackendApplication
{
    let infrastructure = try ServiceInfrastructure(
        name: "metrics", config: config, publishes: [.weightLogged], uses: MetricsEventHandler.topics, consumes: true,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let client = infrastructure.postgres
    let days = DailyMetricsRepository()
    let profiles = MetricsProfileRepository()

    let inbox = try infrastructure.makeInbox(
        group: config.string(forKey: "metrics.consumer.group", default: "metrics"), topics: MetricsEventHandler.topics,
        handler: MetricsEventHandler(profiles: profiles, days: days))

    let router = ServiceRuntime.makeRouter(service: "metrics", checks: infrastructure.readinessChecks)
    MetricsController(store: PostgresBodyMetricsStore(client: client, days: days, profiles: profiles, now: now), now: now)
        .addRoutes(to: router)
    return BackendApplication(
        infrastructure: infrastructure, services: [inbox], router: router, http: try HTTPServerSettings(config: config, defaultPort: 8083),
        logger: logger)
}
