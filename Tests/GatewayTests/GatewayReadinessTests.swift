import AccessTokens
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
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
}
