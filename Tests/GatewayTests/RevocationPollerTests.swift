import AccessTokens
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MetricsTestKit
import NIOCore
import NIOPosix
import Testing

@testable import Gateway

/// The gateway's side of the revocation list: what a poll sends and does with the answer, and what a failed one does.
@Suite("Revocation poller")
struct RevocationPollerTests {
    let tokens = TokenFactory()

    /// An auth service stand-in: `/revocations` answers one revocation of the factory's session and cursor `c1` to a
    /// first poll (400 if it asks to be held), nothing new and cursor `c2` to `after=c1`, 400 to anything else;
    /// `/broken` answers 500; `/held` answers `after=c1&wait=3.0` as `/revocations` does, after 2.5 s.
    func revocationServer() -> some ApplicationProtocol {
        let router = Router()
        let now = Date()
        let first = RevocationPage(
            revocations: [Revocation(userId: tokens.userId, sessionId: tokens.sessionId, revokedAt: now, expiresAt: now.addingTimeInterval(930))],
            cursor: "c1")
        let next = RevocationPage(revocations: [], cursor: "c2")
        router.get("/revocations") { request, _ -> Response in
            let page: RevocationPage
            switch request.uri.queryParameters["after"].map(String.init) {
            case nil:
                // A first poll loads everything at once: never held.
                guard request.uri.queryParameters["wait"] == nil else { return Response(status: .badRequest) }
                page = first
            case "c1": page = next
            default: return Response(status: .badRequest)
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: try page.encoded())))
        }
        router.get("/broken") { _, _ -> Response in Response(status: .internalServerError) }
        // Holds a poll with a cursor as the auth service does with nothing new: 2.5 s, longer than a plain poll's timeout.
        router.get("/held") { request, _ -> Response in
            guard request.uri.queryParameters["after"] == "c1", request.uri.queryParameters["wait"] == "3.0" else {
                return Response(status: .badRequest)
            }
            try await Task.sleep(for: .milliseconds(2500))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: try next.encoded())))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Runs `body` with the stand-in live and a maker of pollers of its paths (each holding polls up to `wait`).
    func withPollers(
        verifier: AccessTokenVerifier, sync: RevocationSync, wait: Duration = .zero, metrics: TestMetrics = TestMetrics(),
        _ body: @Sendable (_ poller: (String) -> RevocationPoller) async throws -> Void
    ) async throws {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            try await revocationServer().test(.live) { server in
                let base = "http://127.0.0.1:\(server.port!)"
                try await body { path in
                    RevocationPoller(
                        url: URL(string: base + path)!, client: client, verifier: verifier, sync: sync, interval: .milliseconds(500),
                        wait: wait, now: { Date() }, logger: Logger(label: "revocations-test"), metrics: metrics)
                }
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test("a poll applies the revocations, drops the cached token, marks the list loaded and passes the cursor on")
    func pollApplies() async throws {
        let metrics = TestMetrics()
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        try await verifier.replaceKeys(jwksJSON: tokens.jwks)
        let token = try await tokens.token()
        _ = try await verifier.verify(token)
        let sync = RevocationSync(staleAfter: .seconds(10))
        try await withPollers(verifier: verifier, sync: sync, metrics: metrics) { poller in
            #expect(await poller("/broken").poll(after: nil) == nil)
            #expect(sync.state() == .loading, "a failed first poll leaves the gateway not ready")
            #expect(await poller("/revocations").poll(after: nil) == "c1")
            #expect(await poller("/revocations").poll(after: "c1") == "c2")
            #expect(sync.state() == .current)
        }
        #expect(verifier.cachedVerification(of: token) == nil)
        await #expect(throws: AccessTokenError.revoked) { _ = try await verifier.verify(token) }
        #expect(metrics.counterTotal(label: "gateway_revocations_sync_failures_total", dimensions: [("reason", "status")]) == 1)
    }

    @Test("a poll with a cursor asks for the answer to be held up to `wait` and waits that much longer for it; the first poll does not")
    func heldPoll() async throws {
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        try await verifier.replaceKeys(jwksJSON: tokens.jwks)
        try await withPollers(verifier: verifier, sync: RevocationSync(staleAfter: .seconds(10)), wait: .seconds(3)) { poller in
            #expect(await poller("/revocations").poll(after: nil) == "c1", "a first poll is not held (no wait asked)")
            #expect(await poller("/held").poll(after: "c1") == "c2")
        }
    }
}
