import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the metrics service: creates every concrete client and wires the routes.
/// Owns schema `metrics`; publishes weightLogged; consumes userDeleted.
func buildApplication(config: ConfigReader, logger: Logger) throws -> BackendApplication {
    let infrastructure = try ServiceInfrastructure(
        name: "metrics", config: config, publishes: [.weightLogged], uses: [.userDeleted], consumes: true,
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let router = ServiceRuntime.makeRouter(service: "metrics", checks: infrastructure.readinessChecks)
    return BackendApplication(
        infrastructure: infrastructure, router: router, http: HTTPServerSettings(config: config, defaultPort: 8083), logger: logger)
}
