import AccessTokens
import AsyncHTTPClient
import Configuration
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import NIOPosix
import ServiceDefaults

@testable import Gateway

extension TokenFactory {
    /// Gateway settings for `routes` that trust this factory's tokens, with the test timeouts (1 s to connect, 5 s
    /// upstream) and no JWKS address.
    func settings(routes: RouteTable) throws -> GatewaySettings {
        GatewaySettings(
            http: try HTTPServerSettings(config: .init(provider: InMemoryProvider(values: [:])), defaultPort: 0), routes: routes,
            connectTimeout: .seconds(1), upstreamTimeout: .seconds(5), healthTimeout: .seconds(1), tokenPolicy: policy,
            jwksURL: nil, jwksRefreshInterval: .seconds(300), trustedProxies: [])
    }

    /// Runs `body` against the whole gateway of `settings` (router and pass-through, on a live server on a free
    /// port, its upstream client configured as `buildApplication` configures it), trusting this factory's key, on `clock`,
    /// with its metrics in `metrics`, verifying with `verifier` (tests that revoke sessions pass theirs), reporting
    /// `revocations`' freshness and counting in `sharedLimits` when given; the upstream HTTP client it makes is shut down
    /// afterwards, whatever `body` does. The methods of each path are `declaredMethods` (none by default: the fake
    /// upstreams serve paths the API document does not describe), not the API document's.
    func withGateway(
        settings: GatewaySettings, clock: GatewayClock = .system, metrics: any MetricsFactory = MetricsSystem.factory,
        verifier: AccessTokenVerifier? = nil, revocations: RevocationSync? = nil, sharedLimits: SharedRateLimiter? = nil,
        declaredMethods: DeclaredMethods = .none, tracing: PassThroughTracing? = nil,
        _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void
    ) async throws {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: upstreamClientConfiguration(settings))
        do {
            let verifier = verifier ?? AccessTokenVerifier(policy: policy)
            try await verifier.replaceKeys(jwksJSON: jwks)
            let application = makeGatewayApplication(
                settings: settings, client: client, verifier: verifier, apiDocument: try .bundled(), declaredMethods: declaredMethods,
                configuration: .init(address: .hostname("127.0.0.1", port: 0)), sharedLimits: sharedLimits, clock: clock, metrics: metrics,
                revocations: revocations, tracing: tracing, logger: Logger(label: "gateway-test"))
            try await application.test(.live) { gateway in try await body(gateway) }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
