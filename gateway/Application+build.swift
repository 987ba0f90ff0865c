import AccessTokens
import AsyncHTTPClient
import Configuration
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOPosix
import ServiceDefaults
import ServiceLifecycle

/// The composition root of the gateway: the upstream client, the token verifier and its key refresher,
/// the rate limiter, the proxy and the gateway's own routes.
func buildApplication(config: ConfigReader, logger: Logger) throws -> RunnableService {
    let settings = try GatewaySettings(config: config)
    guard let jwksURL = settings.jwksURL else {
        throw ConfigurationError.invalid("GATEWAY_JWKS_URL", reason: "required when the routes file has no auth upstream")
    }
    let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: upstreamClientConfiguration(settings))
    let verifier = AccessTokenVerifier(policy: settings.tokenPolicy)
    let refresher = JWKSRefresher(
        url: jwksURL, client: client, verifier: verifier, interval: settings.jwksRefreshInterval, minimumGap: .seconds(30), logger: logger)
    guard let revocationsURL = settings.revocationsURL else {
        throw ConfigurationError.invalid("GATEWAY_REVOCATIONS_URL", reason: "required when the routes file has no auth upstream")
    }
    let revocations = RevocationSync(staleAfter: settings.revocationsStaleAfter)
    let poller = RevocationPoller(
        url: revocationsURL, client: client, verifier: verifier, sync: revocations, interval: settings.revocationsPollInterval,
        wait: settings.revocationsWait, now: GatewayClock.system.date, logger: logger)
    // Rate limits shared with the other gateways when a database is configured (docs/GATEWAY.md, "Rate limits across gateways").
    let sharedLimits = try RateLimitStoreSettings.load(config: config).map { storeSettings in
        try SharedRateLimiter.postgres(
            settings: storeSettings, policies: Array(settings.routes.rateLimits.keys), clock: .system, logger: logger)
    }
    let shutdownGrace = ShutdownGrace(config: config)
    let connections = OpenConnections()
    // The pass-through's spans go their own way (docs/DECISIONS.md, "The gateway's spans skip swift-otel's processor").
    let spanExport = try SpanExportSettings(environment: ProcessInfo.processInfo.environment).map { spanSettings in
        if spanSettings.compressionIgnored {
            logger.notice("OTEL_EXPORTER_OTLP_COMPRESSION=gzip is not applied to the pass-through's spans: they are sent uncompressed")
        }
        return SpanExport(settings: spanSettings, client: client, logger: logger)
    }
    let application = makeGatewayApplication(
        settings: settings, client: client, verifier: verifier, apiDocument: try APIDocumentController.bundled(),
        apiExplorer: try APIExplorerController(directory: settings.docsDirectory),
        configuration: .init(address: .hostname(settings.http.host, port: settings.http.port), serverName: "gateway"),
        sharedLimits: sharedLimits?.limiter, revocations: revocations, shutdownGrace: shutdownGrace, connections: connections,
        tracing: spanExport.map(PassThroughTracing.init), logger: logger)
    // Closes what clients still hold open (idle browsers, half-sent bodies, slow readers) once the connection drain is over.
    let server = DrainingServer(application, connections: connections, closeAfter: settings.http.connectionDrain, logger: logger)
    let background: [any Service] =
        [HTTPClientService(client: client), refresher, poller] + (sharedLimits?.services ?? []) + (spanExport.map { [$0] } ?? [])
    return RunnableService(
        services: background + [server, shutdownGrace],
        drainTimeout: settings.http.drainTimeout, admin: settings.http.admin, logger: logger)
}

/// The gateway application: in every client connection the pass-through (`PassThroughHandler`), which admits every
/// request and forwards the proxied ones itself, and behind it the router, which answers only the gateway's own routes
/// and the ones it composes. Every client connection is kept in `connections`, whose handler comes first so that its
/// close is not held by the pass-through. The pass-through's spans go to `tracing` when it is given (a `SpanExport`
/// whoever builds the application runs).
func makeGatewayApplication(
    settings: GatewaySettings, client: HTTPClient, verifier: AccessTokenVerifier, apiDocument: APIDocumentController,
    apiExplorer: APIExplorerController = .notInstalled, declaredMethods: DeclaredMethods? = nil, configuration: ApplicationConfiguration,
    limiter: RateLimiter = RateLimiter(),
    sharedLimits: SharedRateLimiter? = nil,
    clock: GatewayClock = .system,
    metrics: any MetricsFactory = MetricsSystem.factory, revocations: RevocationSync? = nil, shutdownGrace: ShutdownGrace? = nil,
    connections: OpenConnections = OpenConnections(), tracing: PassThroughTracing? = nil, logger: Logger
) -> some ApplicationProtocol {
    let recorder = RequestMetricsRecorder(factory: metrics)
    let balancers = UpstreamBalancer.all(for: settings.routes, metrics: metrics, logger: logger)
    let upstreamClient = UpstreamClient(client: client, timeout: settings.upstreamTimeout, balancers: balancers)
    let prober = UpstreamReadinessProber(balancers: Array(balancers.values), client: client, probing: settings.probing, logger: logger)
    let rateLimits = RateLimitGate(routes: settings.routes, limiter: limiter, shared: sharedLimits, now: clock.instant, metrics: metrics)
    let router = makeRouter(
        settings: settings, client: client, upstreamClient: upstreamClient, verifier: verifier, apiDocument: apiDocument,
        apiExplorer: apiExplorer, rateLimits: rateLimits, clock: clock, recorder: recorder, revocations: revocations, shutdownGrace: shutdownGrace)
    let admission = PassThroughAdmission(
        routes: settings.routes, balancers: balancers, addresses: ClientAddressResolver(trustedProxies: settings.trustedProxies), verifier: verifier,
        rateLimits: rateLimits, clock: clock, webOrigins: settings.webOrigins, maxBodyBytes: settings.http.maxBodyBytes,
        declaredMethods: declaredMethods ?? apiDocument.declaredMethods)
    let pools = UpstreamConnectionPools(connectTimeout: settings.connectTimeout)
    let upstreamTimeout = settings.upstreamTimeout
    let serverName = configuration.serverName
    let counters = PassThroughCounters(factory: metrics)
    return Application(
        router: router,
        server: GatewayHTTP1Channel.server(handlers: {
            [
                connections.handler(),
                PassThroughHandler(
                    admission: admission, pools: pools, metrics: recorder, counters: counters, upstreamTimeout: upstreamTimeout,
                    serverName: serverName, tracing: tracing, logger: logger),
            ]
        }),
        configuration: configuration, services: [prober], logger: logger)
}

/// The gateway's router: platform middleware (request span, request id, and the request metrics inside the error
/// shape, as in every service), then the gateway's own routes and the composed sync and export routes, which the
/// pass-through admitted (token, rate limit, CORS) before handing them over. `/metrics` is on the admin server only.
func makeRouter(
    settings: GatewaySettings, client: HTTPClient, upstreamClient: UpstreamClient, verifier: AccessTokenVerifier,
    apiDocument: APIDocumentController, apiExplorer: APIExplorerController = .notInstalled, rateLimits: RateLimitGate,
    clock: GatewayClock, recorder: RequestMetricsRecorder, revocations: RevocationSync?,
    shutdownGrace: ShutdownGrace? = nil
) -> Router<GatewayRequestContext> {
    let router = Router(context: GatewayRequestContext.self)
    router.add(middleware: RequestTracingMiddleware())
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: RequestMetricsMiddleware(recorder: recorder))
    SyncController(
        caller: SyncAreaCaller(routes: settings.routes, upstreamClient: upstreamClient),
        maxImportBytes: settings.routes.route(for: "/api/sync/import")?.maxBodyBytes ?? settings.http.maxBodyBytes
    ).addRoutes(to: router)
    DataExportController(
        caller: ExportPartCaller(routes: settings.routes, upstreamClient: upstreamClient),
        now: clock.date
    ).addRoutes(to: router)
    GatewayHealthController(
        upstreams: settings.routes.upstreams, client: client, timeout: settings.healthTimeout, verifier: verifier, revocations: revocations,
        rateLimitStore: rateLimits.shared?.status, shutdownGrace: shutdownGrace
    ).addRoutes(to: router)
    apiDocument.addRoutes(to: router)
    apiExplorer.addRoutes(to: router)
    return router
}

/// The upstream HTTP client's configuration: the connect timeout of `settings`, no retry of a failed connection
/// (the balancer sends the request to another address instead), no redirects, decompression or own spans.
func upstreamClientConfiguration(_ settings: GatewaySettings) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(connect: .init(settings.connectTimeout), read: .init(settings.upstreamTimeout))
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
    // Fail fast on a refused connection instead of retrying it until the request deadline: `UpstreamClient` tries
    // another address at once (or answers 503 when none is left).
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.redirectConfiguration = .disallow
    configuration.decompression = .disabled
    // The proxy makes its own client span (`HTTPClientSpan`): AsyncHTTPClient's would record full URLs, share tokens included.
    configuration.tracing.tracer = nil
    return configuration
}
