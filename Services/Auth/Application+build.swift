import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the auth service: creates every concrete client and wires the routes.
/// Owns schema `auth`; publishes userProfileUpdated, userDeleted; consumes nothing.
func buildApplication(config: ConfigReader, logger: Logger) throws -> BackendApplication {
    let infrastructure = try ServiceInfrastructure(
        name: "auth", config: config, publishes: [.userProfileUpdated, .userDeleted], uses: [], consumes: false,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let router = ServiceRuntime.makeRouter(service: "auth", checks: infrastructure.readinessChecks)
    return BackendApplication(
        infrastructure: infrastructure, router: router, http: HTTPServerSettings(config: config, defaultPort: 8081), logger: logger)
}
