import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Identity: account deletion and rate limits through the gateway", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct AccountDeletionAndLimitsTests {
    @Test("deleting the account needs the password, removes its data, and emits user.deleted exactly once")
    func deletion() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "judy@example.com")
            let userId = session.user.id
            let wrong = try await stack.gateway.call(.delete, "/api/users/me", json: #"{"password":"not it at all"}"#, token: session.accessToken)
            #expect(wrong.status == .forbidden && wrong.errorCode == "wrong_password")

            let deleted = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: session.accessToken)
            #expect(deleted.status == .noContent)
            let again = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: session.accessToken)
            #expect(again.status == .unauthorized, "the sessions went with the account")
            #expect(try await stack.gateway.login(email: "judy@example.com").status == .unauthorized)

            let remaining = try await stack.database.query("SELECT count(*) FROM users WHERE id = \(userId)").collect().first?.decode(Int.self)
            #expect(remaining == 0)
            // Read up to the last copy auth's outbox published: nothing about the user follows a deletion to serve as a marker.
            let events = try await publishedEvents(subject: userId.uuidString.lowercased(), topic: .userDeleted, upTo: .outbox(stack.database))
            #expect(events.count == 1, "user.deleted reached the broker \(events.count) times")
            #expect(try events.first.map { try EventCoding.decode(UserDeleted.self, from: $0).data.userId } == userId)
        }
    }

    @Test("the sixth sign-in inside the window from one address gets 429; other addresses and other users are unaffected")
    func rateLimits() async throws {
        try await IdentityStack.run { stack in
            let alice = try await stack.gateway.register(email: "alice@example.com")
            let bob = try await stack.gateway.register(email: "bob2@example.com")
            let from = { (address: String) -> HTTPFields in [HTTPField.Name("X-Forwarded-For")!: address] }
            for _ in 0..<5 {
                #expect(try await stack.gateway.login(email: "alice@example.com", headers: from("203.0.113.5")).status == .ok)
            }
            let sixth = try await stack.gateway.login(email: "alice@example.com", headers: from("203.0.113.5"))
            #expect(sixth.status == .tooManyRequests && sixth.errorCode == "rate_limited")
            #expect(sixth.headers[HTTPField.Name("RateLimit-Policy")!] == #""auth";q=5;w=900"#)
            #expect(Int(sixth.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try await stack.gateway.login(email: "alice@example.com", headers: from("203.0.113.6")).status == .ok)

            // Per user: three session listings an hour in this configuration.
            for _ in 0..<3 {
                #expect(try await stack.gateway.call(.get, "/api/auth/sessions", token: alice.accessToken).status == .ok)
            }
            #expect(try await stack.gateway.call(.get, "/api/auth/sessions", token: alice.accessToken).status == .tooManyRequests)
            #expect(try await stack.gateway.call(.get, "/api/auth/sessions", token: bob.accessToken).status == .ok)
        }
    }

    @Test("under concurrent sign-ins from one address exactly the limit is admitted")
    func concurrentLimit() async throws {
        try await IdentityStack.run { stack in
            _ = try await stack.gateway.register(email: "kim@example.com")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await stack.gateway.login(
                            email: "kim@example.com", headers: [HTTPField.Name("X-Forwarded-For")!: "192.0.2.77"]
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 7)
            #expect(statuses.filter { $0 == .ok }.count == 5)
        }
    }
}
