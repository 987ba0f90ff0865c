import Hummingbird
import Logging

/// The operators' HTTP server of a process: `GET /metrics` (Prometheus text) on its own address, loopback by default,
/// so that the public port (and through it the gateway) never serves it. Its requests are not counted in the request
/// metrics: a scrape is not traffic.
public enum AdminServer {
    /// The admin router: `/metrics` only.
    public static func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        PrometheusMetrics.addRoute(to: router)
        return router
    }

    /// The admin server of `service` on `settings`' address, to run beside the public one.
    public static func makeApplication(
        settings: AdminServerSettings, service: String, logger: Logger
    ) -> Application<RouterResponder<BasicRequestContext>> {
        var logger = logger
        logger[metadataKey: "server"] = "admin"  // tells its "listening" line from the public server's
        return Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "\(service)-admin"),
            logger: logger)
    }
}
