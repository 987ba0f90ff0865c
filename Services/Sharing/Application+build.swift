import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the sharing service: creates every concrete client and wires the routes.
/// Owns schema `sharing`; publishes nothing; consumes mealAnalyzed, mealConsumed, mealDeleted, userDeleted.
func buildApplication(config: ConfigReader, logger: Logger) throws -> BackendApplication {
    let infrastructure = try ServiceInfrastructure(
        name: "sharing", config: config, publishes: [], uses: [.mealAnalyzed, .mealConsumed, .mealDeleted, .userDeleted], consumes: true,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let router = ServiceRuntime.makeRouter(service: "sharing", checks: infrastructure.readinessChecks)
    return BackendApplication(
        infrastructure: infrastructure, router: router, http: HTTPServerSettings(config: config, defaultPort: 8085), logger: logger)
}
