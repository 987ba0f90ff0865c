import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Revocation at the edge through the real auth service and the real gateway: a signed-out session's access token is
/// refused by the gateway itself (`invalid_token`, where the auth service would say `session_ended`) within 2 s, and
/// by a gateway started afterwards before it serves its first request.
@Suite("Revocation at the edge", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct RevocationTests {
    /// The longest a sign-out may take to reach a gateway (issue 22).
    static let bound: Duration = .seconds(2)

    /// Whether `gateway` refuses `token` itself before `bound` has passed since `start`; asks again every 100 ms.
    static func refusedByGateway(
        _ token: String, on gateway: any TestClientProtocol, since start: ContinuousClock.Instant
    ) async throws -> Bool {
        while ContinuousClock.now < start + bound {
            if try await gateway.call(.get, "/api/auth/me", token: token).errorCode == "invalid_token" { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test("logout makes the gateway refuse the session's cached access token within 2 s; other sessions keep working")
    func logout() async throws {
        try await IdentityStack.run { stack in
            let phone = try await stack.gateway.register(email: "rita@example.com")
            let laptop = try await stack.gateway.login(email: "rita@example.com").decoded(SessionAnswer.self)
            for _ in 1...2 { #expect(try await stack.gateway.call(.get, "/api/auth/me", token: phone.accessToken).status == .ok) }

            let start = ContinuousClock.now
            #expect(try await stack.gateway.call(.post, "/api/auth/logout", token: phone.accessToken).status == .noContent)
            #expect(try await Self.refusedByGateway(phone.accessToken, on: stack.gateway, since: start), "still accepted 2 s after logout")
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: laptop.accessToken).status == .ok)
        }
    }

    @Test("logout-all, password change and account deletion reach the gateway within 2 s each")
    func everyEnding() async throws {
        try await IdentityStack.run { stack in
            let first = try await stack.gateway.register(email: "sam@example.com")
            let second = try await stack.gateway.login(email: "sam@example.com").decoded(SessionAnswer.self)
            var start = ContinuousClock.now
            #expect(try await stack.gateway.call(.post, "/api/auth/logout-all", token: second.accessToken).status == .noContent)
            #expect(try await Self.refusedByGateway(first.accessToken, on: stack.gateway, since: start), "logout-all: first session")
            #expect(try await Self.refusedByGateway(second.accessToken, on: stack.gateway, since: start), "logout-all: second session")

            let kept = try await stack.gateway.login(email: "sam@example.com").decoded(SessionAnswer.self)
            let other = try await stack.gateway.login(email: "sam@example.com").decoded(SessionAnswer.self)
            start = ContinuousClock.now
            let change = try await stack.gateway.call(
                .put, "/api/auth/password", json: #"{"currentPassword":"correct horse battery","newPassword":"a new long passphrase"}"#,
                token: kept.accessToken)
            #expect(change.status == .noContent)
            #expect(try await Self.refusedByGateway(other.accessToken, on: stack.gateway, since: start), "password change: other session")
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: kept.accessToken).status == .ok, "the changing session stays")

            start = ContinuousClock.now
            let deleted = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"a new long passphrase"}"#, token: kept.accessToken)
            #expect(deleted.status == .noContent)
            #expect(try await Self.refusedByGateway(kept.accessToken, on: stack.gateway, since: start), "account deletion")
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
