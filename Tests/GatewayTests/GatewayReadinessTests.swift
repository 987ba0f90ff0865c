import AccessTokens
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MetricsTestKit
import NIOPosix
import ServiceDefaults
import ServiceLifecycle
import Testing

@testable import Gateway

@Suite("Gateway readiness")
struct GatewayReadinessTests {
    let tokens = TokenFactory()

    /// The rolling-deploy run caught a restarted gateway taking requests before it held its keys: HAProxy still had the
    /// old process in rotation when it closed, because the gateway stayed ready through its shutdown grace.
    @Test(
        "a gateway that got SIGTERM says not ready during its grace, so balancers stop sending before it closes",
        .timeLimit(.minutes(1)))
    func notReadyDuringShutdownGrace() async throws {
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        try await verifier.replaceKeys(jwksJSON: tokens.jwks)
        let grace = ShutdownGrace(grace: .seconds(30))
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let router = Router()
        GatewayHealthController(
            upstreams: [:], client: client, timeout: .seconds(1), verifier: verifier, shutdownGrace: grace
        ).addRoutes(to: router)
        let group = ServiceGroup(configuration: .init(services: [grace], logger: Logger(label: "gateway-readiness-test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Application(router: router).test(.router) { gateway in
                try await gateway.execute(uri: "/health/ready", method: .get) { #expect($0.status == .ok) }
                await group.triggerGracefulShutdown()
                while !grace.isStopping { try await Task.sleep(for: .milliseconds(5)) }
                try await gateway.execute(uri: "/health/ready", method: .get) { #expect($0.status == .serviceUnavailable) }
                try await gateway.execute(uri: "/health/live", method: .get) { #expect($0.status == .ok, "it still serves") }
            }
            tasks.cancelAll()
        }
        try await client.shutdown()
    }

    @Test("a gateway is not ready until its shared rate-limit store first answered; a store that went down later keeps it ready")
    func notReadyBeforeTheStoreFirstAnswers() async throws {
        struct StoreDown: Error {}
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        try await verifier.replaceKeys(jwksJSON: tokens.jwks)
        let store = RateLimitStoreStatus(isUp: false, metrics: TestMetrics(), logger: Logger(label: "gateway-readiness-test"))
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let router = Router()
        GatewayHealthController(upstreams: [:], client: client, timeout: .seconds(1), verifier: verifier, rateLimitStore: store)
            .addRoutes(to: router)
        try await Application(router: router).test(.router) { gateway in
            try await gateway.execute(uri: "/health/ready", method: .get) {
                #expect($0.status == .serviceUnavailable, "fail-closed policies cannot be decided yet")
            }
            store.failed(CancellationError())
            #expect(store.isStarting, "a cancelled statement says nothing of the store")
            store.succeeded()
            try await gateway.execute(uri: "/health/ready", method: .get) { #expect($0.status == .ok) }
            store.failed(StoreDown())
            try await gateway.execute(uri: "/health/ready", method: .get) {
                #expect($0.status == .ok, "down later: it serves, refusing only the fail-closed policies")
            }
        }
        try await client.shutdown()
    }
}
