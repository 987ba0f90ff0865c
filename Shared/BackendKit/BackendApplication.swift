import Hummingbird
import Logging
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// A backend service ready to run: its infrastructure, its own long-lived parts (`services`), and the HTTP
/// application serving `router`, which applies the schema's migrations before it accepts requests.
public struct BackendApplication: Sendable {
    public let infrastructure: ServiceInfrastructure
    public let application: Application<RouterResponder<AppRequestContext>>
    public let http: HTTPServerSettings
    public let services: [any Service]
    /// Operator routes on the admin port beside `/metrics`.
    public let adminRoutes: AdminRoutes
    /// The HTTP server's client connections, closed when its drain is over (`DrainingServer`).
    public let connections: OpenConnections

    public init(
        infrastructure: ServiceInfrastructure, services: [any Service] = [], router: Router<AppRequestContext>, http: HTTPServerSettings,
        adminRoutes: AdminRoutes = .none, logger: Logger
    ) {
        self.infrastructure = infrastructure
        self.services = services
        self.adminRoutes = adminRoutes
        self.http = http
        let connections = OpenConnections()
        self.connections = connections
        var application = Application(
            router: router, server: .http1(configuration: .init(additionalChannelHandlers: [connections.handler()])),
            configuration: .init(address: .hostname(http.host, port: http.port), serverName: infrastructure.name),
            logger: logger)
        application.beforeServerStarts { [infrastructure] in try await infrastructure.migrate() }
        self.application = application
    }

    /// Everything to run, infrastructure first so that the HTTP server stops first on shutdown, after the grace in
    /// which it still accepts requests, closing what its clients still hold open once its connection drain is over.
    public var runnable: RunnableService {
        let server = DrainingServer(application, connections: connections, closeAfter: http.connectionDrain, logger: application.logger)
        return RunnableService(
            services: infrastructure.services + services + [server, infrastructure.shutdownGrace], drainTimeout: http.drainTimeout,
            admin: http.admin, adminRoutes: adminRoutes, logger: application.logger)
    }
}
