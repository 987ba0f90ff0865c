import AccessTokens
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import ServiceDefaults
import Synchronization
import Testing

@testable import Gateway

/// Revocation at the edge: a revoked session's tokens are refused by the router and the pass-through alike, even
/// when already verified and cached; readiness waits for the first revocation load.
extension UpstreamProxyTests {
    /// The revocation of `tokens`' session at `now`.
    private func sessionRevocation(now: Date = Date()) -> Revocation {
        Revocation(userId: tokens.userId, sessionId: tokens.sessionId, revokedAt: now, expiresAt: now.addingTimeInterval(930))
    }

    /// The status and error code of a private request with `token`.
    private func privateRequest(_ gateway: any TestClientProtocol, token: String) async throws -> (HTTPResponse.Status, String?) {
        try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
            let code = try? JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error.code
            return (response.status, code)
        }
    }

    @Test("a cached token is refused once its session's revocation arrives")
    func revokedCachedTokenIsRefused() async throws {
        let metrics = TestMetrics()
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        let token = try await tokens.token()
        try await withGateway(metrics: metrics, verifier: verifier) { gateway in
            // The first request is verified and the verification cached; the second is admitted from the cache.
            #expect(try await privateRequest(gateway, token: token).0 == .ok)
            #expect(try await privateRequest(gateway, token: token).0 == .ok)
            #expect(verifier.cachedVerification(of: token) != nil)

            verifier.applyRevocations([sessionRevocation()])
            #expect(verifier.cachedVerification(of: token) == nil, "the pass-through's cache no longer holds the token")
            for _ in 1...2 {
                let (status, code) = try await privateRequest(gateway, token: token)
                #expect(status == .unauthorized)
                #expect(code == "invalid_token")
            }
        }
        let forwarded = metrics.counterTotal(label: "gateway_pass_through_requests_total", dimensions: [("outcome", "forwarded")])
        #expect(forwarded == 2, "after the revocation nothing more was forwarded")
    }

    @Test("a user-wide revocation refuses that user's tokens issued before it, and accepts the ones issued after")
    func userWideRevocation() async throws {
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        let now = Date()
        let before = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(-60)))
        let after = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(2)))
        try await withGateway(verifier: verifier) { gateway in
            let accepted = try await privateRequest(gateway, token: before)
            #expect(accepted.0 == .ok)
            verifier.applyRevocations([Revocation(userId: tokens.userId, sessionId: nil, revokedAt: now, expiresAt: now.addingTimeInterval(930))])
            let refused = try await privateRequest(gateway, token: before)
            #expect(refused == (.unauthorized, "invalid_token"))
            let issuedLater = try await privateRequest(gateway, token: after)
            #expect(issuedLater.0 == .ok)
        }
    }

    @Test("on one connection the token its last request proved is checked again each time: refused once revoked or expired")
    func recentTokenOfAConnection() async throws {
        let verifier = AccessTokenVerifier(policy: tokens.policy)
        let now = Date()
        let offset = Mutex<TimeInterval>(0)
        let clock = GatewayClock(date: { now.addingTimeInterval(offset.withLock { $0 }) }, instant: { ContinuousClock.now })
        let expiring = try await tokens.token(tokens.claims(issuedAt: now, expiresAt: now.addingTimeInterval(600)))
        let revoked = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(-1)))
        try await echoUpstream().test(.live) { upstream in
            let settings = try settings(upstreamPort: upstream.port!)
            try await tokens.withGateway(settings: settings, clock: clock, verifier: verifier) { gateway in
                // The first request waits for the verification; the next ones on this connection are admitted from it.
                for _ in 1...3 {
                    let status = try await privateRequest(gateway, token: expiring).0
                    #expect(status == .ok)
                }
                offset.withLock { $0 = 601 }
                let expired = try await privateRequest(gateway, token: expiring)
                #expect(expired == (.unauthorized, "token_expired"))

                offset.withLock { $0 = 0 }
                for _ in 1...3 {
                    let status = try await privateRequest(gateway, token: revoked).0
                    #expect(status == .ok)
                }
                verifier.applyRevocations([sessionRevocation(now: now)])
                let refused = try await privateRequest(gateway, token: revoked)
                #expect(refused == (.unauthorized, "invalid_token"))
            }
        }
    }

    @Test("the gateway is not ready until it has loaded the revocations once; a list not polled within the bound is stale")
    func readinessWaitsForRevocations() async throws {
        let sync = RevocationSync(staleAfter: .seconds(10))
        try await echoUpstream().test(.live) { upstream in
            try await tokens.withGateway(settings: try settings(upstreamPort: upstream.port!), revocations: sync) { gateway in
                let loading = try await gateway.execute(uri: "/health/ready", method: .get).status
                #expect(loading == .serviceUnavailable)
                sync.succeeded()
                let loaded = try await gateway.execute(uri: "/health/ready", method: .get).status
                #expect(loaded == .ok)
            }
        }
        sync.succeeded(at: .now - .seconds(11))
        #expect(sync.state() == .stale)
    }
}
