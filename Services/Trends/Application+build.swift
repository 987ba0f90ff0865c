import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the trends service: creates every concrete client and wires the routes.
/// Owns schema `trends`; publishes nothing; consumes mealAnalyzed, mealConsumed, mealDeleted, weightLogged, userProfileUpdated, userDeleted.
func buildApplication(config: ConfigReader, logger: Logger) throws -> BackendApplication {
    let infrastructure = try ServiceInfrastructure(
        name: "trends", config: config, publishes: [], uses: [.mealAnalyzed, .mealConsumed, .mealDeleted, .weightLogged, .userProfileUpdated, .userDeleted], consumes: true,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let router = ServiceRuntime.makeRouter(service: "trends", checks: infrastructure.readinessChecks)
    return BackendApplication(
        infrastructure: infrastructure, router: router, http: HTTPServerSettings(config: config, defaultPort: 8084), logger: logger)
}
