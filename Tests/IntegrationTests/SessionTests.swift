import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Identity: sessions, refresh rotation and passwords through the gateway", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct SessionTests {
    func refresh(_ token: String, on gateway: any TestClientProtocol) async throws -> TestResponse {
        try await gateway.call(.post, "/api/auth/refresh", json: #"{"refreshToken":"\#(token)"}"#)
    }

    @Test("refresh rotates the token; a concurrent retry within the grace window is honoured; later reuse ends the session")
    func refreshRotation() async throws {
        try await IdentityStack.run { stack in
            let first = try await stack.gateway.register(email: "dan@example.com")
            let rotated = try await refresh(first.refreshToken, on: stack.gateway)
            #expect(rotated.status == .ok)
            let second = try rotated.decoded(SessionAnswer.self)
            #expect(second.refreshToken != first.refreshToken && second.sessionId == first.sessionId)

            stack.clock.advance(by: 2)
            let retry = try await refresh(first.refreshToken, on: stack.gateway)
            #expect(retry.status == .ok, "a retry within the grace window gets a fresh pair")

            stack.clock.advance(by: 10)
            let reuse = try await refresh(first.refreshToken, on: stack.gateway)
            #expect(reuse.status == .unauthorized)
            #expect(reuse.errorCode == "refresh_token_reused")
            let afterReuse = try await refresh(second.refreshToken, on: stack.gateway)
            #expect(afterReuse.errorCode == "invalid_refresh_token", "reuse ended the whole session, newer tokens included")
            let me = try await stack.gateway.call(.get, "/api/auth/me", token: second.accessToken)
            #expect(me.isSessionEndedRefusal)

            #expect(try await refresh("made-up", on: stack.gateway).errorCode == "invalid_refresh_token")
        }
    }

    @Test("logout ends this session, logout-all every session; the session list marks the current one")
    func logout() async throws {
        try await IdentityStack.run { stack in
            let phone = try await stack.gateway.register(email: "erin@example.com")
            let laptop = try await stack.gateway.login(email: "erin@example.com").decoded(SessionAnswer.self)
            let list = try await stack.gateway.call(.get, "/api/auth/sessions", token: phone.accessToken).decoded(SessionList.self)
            #expect(list.sessions.count == 2)
            #expect(list.sessions.first { $0.current }?.id == phone.sessionId)

            #expect(try await stack.gateway.call(.post, "/api/auth/logout", token: phone.accessToken).status == .noContent)
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: phone.accessToken).isSessionEndedRefusal)
            #expect(try await refresh(phone.refreshToken, on: stack.gateway).status == .unauthorized)
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: laptop.accessToken).status == .ok)

            let tablet = try await stack.gateway.login(email: "erin@example.com").decoded(SessionAnswer.self)
            #expect(try await stack.gateway.call(.post, "/api/auth/logout-all", token: tablet.accessToken).status == .noContent)
            #expect(try await refresh(laptop.refreshToken, on: stack.gateway).status == .unauthorized)
            #expect(try await refresh(tablet.refreshToken, on: stack.gateway).status == .unauthorized)
        }
    }

    @Test("another user's sessions are invisible and cannot be ended")
    func isolation() async throws {
        try await IdentityStack.run { stack in
            let frank = try await stack.gateway.register(email: "frank@example.com")
            let grace = try await stack.gateway.register(email: "grace@example.com")
            let graceList = try await stack.gateway.call(.get, "/api/auth/sessions", token: grace.accessToken).decoded(SessionList.self)
            #expect(!graceList.sessions.contains { $0.id == frank.sessionId })
            let attempt = try await stack.gateway.call(.delete, "/api/auth/sessions/\(frank.sessionId)", token: grace.accessToken)
            #expect(attempt.status == .notFound)
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: frank.accessToken).status == .ok)
            let me = try await stack.gateway.call(
                .get, "/api/auth/me", token: grace.accessToken, headers: [HTTPField.Name("X-User-Id")!: frank.user.id.uuidString])
            #expect(try me.decoded(MeFields.self).user.email == "grace@example.com", "a client-sent X-User-Id changes nothing")
        }
    }

    @Test("changing the password needs the current one and ends every other session")
    func changePassword() async throws {
        try await IdentityStack.run { stack in
            let current = try await stack.gateway.register(email: "heidi@example.com")
            let other = try await stack.gateway.login(email: "heidi@example.com").decoded(SessionAnswer.self)
            let wrong = try await stack.gateway.call(
                .put, "/api/auth/password", json: #"{"currentPassword":"nope nope","newPassword":"a brand new secret"}"#, token: current.accessToken)
            #expect(wrong.status == .forbidden && wrong.errorCode == "wrong_password")
            let weak = try await stack.gateway.call(
                .put, "/api/auth/password", json: #"{"currentPassword":"correct horse battery","newPassword":"password"}"#, token: current.accessToken
            )
            #expect(weak.status == .unprocessableContent)
            let changed = try await stack.gateway.call(
                .put, "/api/auth/password", json: #"{"currentPassword":"correct horse battery","newPassword":"a brand new secret"}"#,
                token: current.accessToken)
            #expect(changed.status == .noContent)
            #expect(try await refresh(other.refreshToken, on: stack.gateway).status == .unauthorized, "other sessions end")
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: current.accessToken).status == .ok, "this one stays")
            #expect(try await stack.gateway.login(email: "heidi@example.com").status == .unauthorized)
            #expect(try await stack.gateway.login(email: "heidi@example.com", password: "a brand new secret").status == .ok)
        }
    }

    @Test("password reset answers alike for known and unknown emails, mails a single-use link, and ends every session")
    func passwordReset() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "ivan@example.com")
            let known = try await stack.gateway.call(.post, "/api/auth/password-reset", json: #"{"email":"IVAN@example.com"}"#)
            let unknown = try await stack.gateway.call(.post, "/api/auth/password-reset", json: #"{"email":"nobody@example.com"}"#)
            #expect(known.status == .accepted && unknown.status == .accepted)
            #expect(String(buffer: known.body) == String(buffer: unknown.body))

            let token = try #require(try await mailedResetToken(in: stack.mailDirectory, for: "ivan@example.com"))
            let confirm = try await stack.gateway.call(
                .post, "/api/auth/password-reset/confirm", json: #"{"token":"\#(token)","newPassword":"reset and renewed"}"#)
            #expect(confirm.status == .noContent)
            #expect(try await refresh(session.refreshToken, on: stack.gateway).status == .unauthorized, "every session ended")
            #expect(try await stack.gateway.call(.get, "/api/auth/me", token: session.accessToken).isSessionEndedRefusal)
            #expect(try await stack.gateway.login(email: "ivan@example.com", password: "reset and renewed").status == .ok)

            let reuse = try await stack.gateway.call(
                .post, "/api/auth/password-reset/confirm", json: #"{"token":"\#(token)","newPassword":"yet another one"}"#)
            #expect(reuse.status == .unprocessableContent && reuse.errorCode == "invalid_reset_token")

            _ = try await stack.gateway.call(.post, "/api/auth/password-reset", json: #"{"email":"ivan@example.com"}"#)
            let second = try #require(try await mailedResetToken(in: stack.mailDirectory, for: "ivan@example.com", excluding: [token]))
            stack.clock.advance(by: 3601)
            let expired = try await stack.gateway.call(
                .post, "/api/auth/password-reset/confirm", json: #"{"token":"\#(second)","newPassword":"too late now"}"#)
            #expect(expired.errorCode == "invalid_reset_token", "links expire after an hour")
        }
    }
}

struct SessionList: Decodable {
    struct Item: Decodable {
        var id: UUID
        var current: Bool
    }

    var sessions: [Item]
}

struct MeFields: Decodable {
    struct User: Decodable {
        var id: UUID
        var email: String
    }

    var user: User
}

/// Waits for the mail relay to write the reset mail and reads the token from its link.
func mailedResetToken(in directory: URL, for recipient: String, excluding: Set<String> = []) async throws -> String? {
    var found: String?
    _ = try await TestEnvironment.eventually(timeout: .seconds(15)) {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        // The mailer writes atomically, through a hidden temporary file that may vanish while we list.
        for file in files where !file.lastPathComponent.hasPrefix(".") {
            guard let text = try? String(contentsOf: file, encoding: .utf8), text.contains("To: \(recipient)"), let range = text.range(of: "?token=")
            else { continue }
            let token = String(text[range.upperBound...].prefix { !$0.isWhitespace })
            if !excluding.contains(token) { found = token }
        }
        return found != nil
    }
    return found
}
