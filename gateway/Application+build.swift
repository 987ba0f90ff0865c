import AsyncHTTPClient
import Configuration
import Hummingbird
import Logging
import NIOPosix
import ServiceDefaults

/// The composition root of the gateway: the upstream client, the proxy and the aggregated health route.
/// JWT verification and rate limits slot in as middleware before `UpstreamProxy`.
func buildApplication(config: ConfigReader, logger: Logger) throws -> RunnableService {
    let settings = try GatewaySettings(config: config)
    let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: upstreamClientConfiguration(settings))
    let router = makeRouter(settings: settings, client: client)
    let application = Application(
        router: router,
        configuration: .init(address: .hostname(settings.http.host, port: settings.http.port), serverName: "gateway"),
        logger: logger)
    return RunnableService(services: [HTTPClientService(client: client), application], drainTimeout: settings.http.drainTimeout, logger: logger)
}

/// The gateway's router: platform middleware, the proxy, and the gateway's own routes.
func makeRouter(settings: GatewaySettings, client: HTTPClient) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(
        middleware: UpstreamProxy(
            routes: settings.routes, client: client, upstreamTimeout: settings.upstreamTimeout, maxBodyBytes: settings.http.maxBodyBytes))
    GatewayHealthController(upstreams: settings.routes.upstreams, client: client, timeout: settings.healthTimeout).addRoutes(to: router)
    PrometheusMetrics.addRoute(to: router)
    return router
}

private func upstreamClientConfiguration(_ settings: GatewaySettings) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(connect: .init(settings.connectTimeout), read: .init(settings.upstreamTimeout))
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
    // Fail fast on a refused connection (503 at once) instead of retrying until the request deadline.
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.redirectConfiguration = .disallow
    configuration.decompression = .disabled
    return configuration
}
