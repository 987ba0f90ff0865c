import Hummingbird
import Logging
import ServiceLifecycle

/// The operators' HTTP server of a process: `GET /metrics` (Prometheus text) and any operator routes of the service
/// (`AdminRoutes`, such as the foods service's review of reported products) on its own address, loopback by default,
/// so that the public port (and through it the gateway) never serves it. Its requests are not counted in the request
/// metrics: a scrape is not traffic. Errors take the one error shape.
public enum AdminServer {
    /// The admin router: `/metrics` and `routes`.
    public static func makeRouter(routes: AdminRoutes = .none) -> Router<AppRequestContext> {
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: RequestIdMiddleware())
        router.add(middleware: ErrorMiddleware())
        PrometheusMetrics.addRoute(to: router)
        routes.add(router)
        return router
    }

    /// How long the admin server's connections may stay open once it starts to stop: a scrape in progress finishes,
    /// and a client that holds its connection open (a browser, a half-read answer) does not hold the exit.
    public static let connectionDrain = Duration.seconds(1)

    /// The admin server of `service` on `settings`' address, to run beside the public one; its client connections are
    /// kept in `connections`.
    public static func makeApplication(
        settings: AdminServerSettings, service: String, routes: AdminRoutes = .none, connections: OpenConnections = OpenConnections(),
        logger: Logger
    ) -> Application<RouterResponder<AppRequestContext>> {
        var logger = logger
        logger[metadataKey: "server"] = "admin"  // tells its "listening" line from the public server's
        return Application(
            router: makeRouter(routes: routes), server: .http1(configuration: .init(additionalChannelHandlers: [connections.handler()])),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "\(service)-admin"),
            logger: logger)
    }

    /// The admin server of `service`, run so that no client can hold the process's exit (`DrainingServer`).
    public static func makeService(settings: AdminServerSettings, service: String, routes: AdminRoutes = .none, logger: Logger) -> some Service {
        let connections = OpenConnections()
        let application = makeApplication(settings: settings, service: service, routes: routes, connections: connections, logger: logger)
        return DrainingServer(application, connections: connections, closeAfter: connectionDrain, logger: application.logger)
    }
}

/// A service's operator routes on its admin server (never reachable through the gateway).
public struct AdminRoutes: Sendable {
    let add: @Sendable (Router<AppRequestContext>) -> Void

    public init(_ add: @escaping @Sendable (Router<AppRequestContext>) -> Void) {
        self.add = add
    }

    /// `/metrics` only.
    public static let none = AdminRoutes { _ in }
}
