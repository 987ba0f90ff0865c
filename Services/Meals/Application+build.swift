import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the meals service: creates every concrete client and wires the routes.
/// Owns schema `meals`; publishes mealAnalyzed, mealConsumed, mealDeleted; consumes userProfileUpdated, userDeleted.
func buildApplication(config: ConfigReader, logger: Logger) throws -> BackendApplication {
    let infrastructure = try ServiceInfrastructure(
        name: "meals", config: config, publishes: [.mealAnalyzed, .mealConsumed, .mealDeleted], uses: [.userProfileUpdated, .userDeleted], consumes: true,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let router = ServiceRuntime.makeRouter(service: "meals", checks: infrastructure.readinessChecks)
    return BackendApplication(
        infrastructure: infrastructure, router: router, http: HTTPServerSettings(config: config, defaultPort: 8082), logger: logger)
}
