import AccessTokens
import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Revocation at the edge through the real auth service and the real gateway: a signed-out session's access token is
/// refused by the gateway itself (`invalid_token`, where the auth service would say `session_ended`), and by a gateway
/// started afterwards before it serves its first request. How soon (within 2 s) is a check of the fault run
/// (`deploy/faults`, deploy/faults.d/faultrun/revocation.py), not of this test: tests assert no wall-clock time.
@Suite("Revocation at the edge", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct RevocationTests {
    /// Whether `gateway` comes to refuse `token` itself (asked every 200 ms, for at most 30 s).
    static func refusedByGateway(_ token: String, on gateway: any TestClientProtocol) async throws -> Bool {
        try await TestEnvironment.eventually(timeout: .seconds(30)) {
            try await gateway.call(.get, "/api/auth/me", token: token).errorCode == "invalid_token"
        }
    }

    @Test("logout makes the gateway itself refuse the session's cached access token; other sessions keep working")
    func logout() async throws {
        try await IdentityStack.run { stack in
            let phone = try await stack.gateway.register(email: "rita@example.com")
            let laptop = try await stack.gateway.login(email: "rita@example.com").decoded(SessionAnswer.self)
            for _ in 1...2 { #expect(try await stack.gateway.call(.get, "/api/auth/me", token: phone.accessToken).status == .ok) }

            #expect(try await stack.gateway.call(.post, "/api/auth/logout", token: phone.accessToken).status == .noContent)
            #expect(try await Self.refusedByGateway(phone.accessToken, on: stack.gateway), "still accepted after logout")
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: laptop.accessToken).status == .ok)
        }
    }

    @Test("logout-all, password change and account deletion each reach the gateway, which refuses the ended sessions itself")
    func everyEnding() async throws {
        try await IdentityStack.run { stack in
            let first = try await stack.gateway.register(email: "sam@example.com")
            let second = try await stack.gateway.login(email: "sam@example.com").decoded(SessionAnswer.self)
            #expect(try await stack.gateway.call(.post, "/api/auth/logout-all", token: second.accessToken).status == .noContent)
            #expect(try await Self.refusedByGateway(first.accessToken, on: stack.gateway), "logout-all: first session")
            #expect(try await Self.refusedByGateway(second.accessToken, on: stack.gateway), "logout-all: second session")

            let kept = try await stack.gateway.login(email: "sam@example.com").decoded(SessionAnswer.self)
            let other = try await stack.gateway.login(email: "sam@example.com").decoded(SessionAnswer.self)
            let change = try await stack.gateway.call(
                .put, "/api/auth/password", json: #"{"currentPassword":"correct horse battery","newPassword":"a new long passphrase"}"#,
                token: kept.accessToken)
            #expect(change.status == .noContent)
            #expect(try await Self.refusedByGateway(other.accessToken, on: stack.gateway), "password change: other session")
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: kept.accessToken).status == .ok, "the changing session stays")

            let deleted = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"a new long passphrase"}"#, token: kept.accessToken)
            #expect(deleted.status == .noContent)
            #expect(try await Self.refusedByGateway(kept.accessToken, on: stack.gateway), "account deletion")
        }
    }

    /// Asks the auth service's revocation list directly, as a gateway's poller does.
    static func revocationPage(authPort: Int, query: String) async throws -> RevocationPage {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(authPort)/internal/revocations\(query)"), timeout: .seconds(60))
        #expect(response.status == .ok)
        return try RevocationPage.decoded(from: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test("a poll with nothing new is held and answered as soon as a session ends, with that session")
    func heldPollWakesOnSignOut() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "uma@example.com")
            let first = try await Self.revocationPage(authPort: stack.authPort, query: "")
            #expect(first.revocations.isEmpty)
            // Held for at most 30 s; answered before the 20 s guard only if the sign-out woke it.
            let held = Task { try await Self.revocationPage(authPort: stack.authPort, query: "?after=\(first.cursor)&wait=30") }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await stack.gateway.call(.post, "/api/auth/logout", token: session.accessToken).status == .noContent)
            let answer = try await TestEnvironment.result(of: { try await held.value }, within: .seconds(20))
            #expect(answer?.revocations.count == 1, "the held poll was not answered with the sign-out")

            let refused = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(stack.authPort)/internal/revocations?after=\(first.cursor)&wait=31"),
                timeout: .seconds(10))
            #expect(refused.status == .badRequest, "a wait above 30 s is refused")
        }
    }

    @Test("a gateway started after a logout refuses the old token from its first request")
    func newGatewayLoadsLiveRevocations() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "tess@example.com")
            #expect(try await stack.gateway.call(.post, "/api/auth/logout", token: session.accessToken).status == .noContent)
            try await IdentityStack.withGateway(routesJSON: IdentityStack.routesJSON, upstreams: ["auth": stack.authPort], clock: stack.clock) {
                restarted in
                let first = try await restarted.call(.get, "/api/auth/me", token: session.accessToken)
                #expect(first.errorCode == "invalid_token")
            }
        }
    }
}
