import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import TestSupport
import Testing

@testable import AuthService

/// Sign-up at the router level, on the in-memory account store: the forms the seeds send (`{email, password}`
/// alone, `displayName`, its alias `name`) and the refusals.
@Suite("Registration routes on an in-memory account store")
struct RegistrationRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    let store = InMemoryAccountStore()
    let hasher = PasswordHasher(settings: .init(cost: 4, threads: 1, queueLimit: 8))

    /// The subset of a session answer the tests read.
    struct SessionAnswer: Decodable {
        struct User: Decodable { var displayName: String }
        struct Profile: Decodable { var displayName: String }
        var user: User
        var profile: Profile
    }

    /// Runs `body` against the registration route at `now`, with the hasher running.
    func withRoutes(now: Date = Self.now, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await hasher.run() }
            defer { group.cancelAll() }
            while (try? await hasher.hash("warm up")) == nil {
                // The hasher refuses work until `run` has started its threads.
                try await Task.sleep(for: .milliseconds(10))
            }
            let router = ServiceRuntime.makeRouter(service: "auth", checks: [])
            RegistrationController(store: store, hasher: hasher, sessionLifetime: .seconds(30 * 86_400), now: { now }).addRoutes(to: router)
            try await Application(router: router).test(.router) { client in
                let problems = try await ContractCheckingClient.problems(of: client, body)
                #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
            }
        }
    }

    func register(_ client: some TestClientProtocol, _ json: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/auth/register", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    @Test("email and password alone sign up, named after the part of the address before @")
    func emailAndPasswordOnly() async throws {
        try await withRoutes { client in
            let answer = try await register(client, #"{"email":" Fit.Fan@Example.com ","password":"correct horse battery"}"#)
            #expect(answer.status == .created)
            let session = try decode(SessionAnswer.self, answer)
            #expect(session.user.displayName == "Fit.Fan" && session.profile.displayName == "Fit.Fan")
        }
        #expect(store.published.map(\.type) == ["user.profile_updated"])
    }

    @Test("name is accepted as the alias of displayName, trimmed")
    func nameAlias() async throws {
        try await withRoutes { client in
            let answer = try await register(client, #"{"email":"dash@example.com","password":"correct horse battery","name":"  Dana "}"#)
            #expect(answer.status == .created)
            #expect(try decode(SessionAnswer.self, answer).profile.displayName == "Dana")

            let same = try await register(
                client, #"{"email":"both@example.com","password":"correct horse battery","name":"Bo","displayName":"Bo"}"#)
            #expect(same.status == .created)
            #expect(try decode(SessionAnswer.self, same).profile.displayName == "Bo")
        }
    }

    @Test("displayName and name that differ answer 422 naming name, and nothing is created")
    func differingNames() async throws {
        try await withRoutes { client in
            let answer = try await register(
                client, #"{"email":"two@example.com","password":"correct horse battery","name":"One","displayName":"Other"}"#)
            #expect(answer.status == .unprocessableContent)
            let error = try decode(ErrorBody.self, answer)
            #expect(error.error.code == "validation_failed")
            #expect(Set(error.error.details.keys) == ["name"])
        }
        #expect(store.published.isEmpty)
    }

    @Test("an invalid name is named by the field it came in")
    func invalidAlias() async throws {
        try await withRoutes { client in
            let answer = try await register(client, #"{"email":"blank@example.com","password":"correct horse battery","name":"   "}"#)
            #expect(answer.status == .unprocessableContent)
            #expect(Set(try decode(ErrorBody.self, answer).error.details.keys) == ["name"])
        }
    }

    @Test("a missing password is 422 naming it as required, a weak one 422 naming password; neither creates an account")
    func missingPassword() async throws {
        try await withRoutes { client in
            let missing = try await register(client, #"{"email":"nopass@example.com"}"#)
            #expect(missing.status == .unprocessableContent)
            #expect(try decode(ErrorBody.self, missing).error.code == "validation_failed")
            #expect(try decode(ErrorBody.self, missing).error.details == ["password": "is required"])

            let weak = try await register(client, #"{"email":"weak@example.com","password":"short"}"#)
            #expect(weak.status == .unprocessableContent)
            #expect(Set(try decode(ErrorBody.self, weak).error.details.keys) == ["password"])
        }
        #expect(store.published.isEmpty)
    }

    @Test("an address registers once: the second sign-up is 409 email_taken")
    func emailTaken() async throws {
        try await withRoutes { client in
            #expect(try await register(client, #"{"email":"once@example.com","password":"correct horse battery"}"#).status == .created)
            let again = try await register(client, #"{"email":"ONCE@example.com","password":"correct horse battery"}"#)
            #expect(again.status == .conflict)
            #expect(try decode(ErrorBody.self, again).error.code == "email_taken")
        }
    }

    @Test(
        "the device's zone sent at sign-up is the profile's from the start: the published profile and the goals' first day are in it",
        arguments: TestToday.variety)
    func timeZoneAtSignUp(day: TestToday) async throws {
        try await withRoutes(now: day.now) { client in
            let answer = try await register(
                client, #"{"email":"island@example.com","password":"correct horse battery","timeZone":"\#(day.zoneName)"}"#)
            #expect(answer.status == .created)
            let body = try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any]
            #expect((body?["profile"] as? [String: Any])?["timeZone"] as? String == day.zoneName)
            let userId = try #require(store.published.first?.userId)
            let published = try #require(store.storedProfile(of: userId)).event
            #expect(published.timeZone == day.zoneName && published.goalsEffectiveFrom == day.date)

            let plain = try await register(client, #"{"email":"nozone@example.com","password":"correct horse battery"}"#)
            let plainBody = try JSONSerialization.jsonObject(with: Data(buffer: plain.body)) as? [String: Any]
            #expect((plainBody?["profile"] as? [String: Any])?["timeZone"] as? String == "UTC")
            let plainUser = try #require(store.published.last?.userId)
            #expect(store.storedProfile(of: plainUser)?.goalsEffectiveFrom == TestToday.date(of: day.now, in: TimeZone(identifier: "UTC")!))
        }
    }

    @Test("a zone that is not an IANA name is 422 naming timeZone, beside the other bad fields, and nothing is created")
    func invalidTimeZone() async throws {
        try await withRoutes { client in
            for zone in ["Mars/Olympus", "europe/berlin", "EST", "GMT+2", "+02:00", ""] {
                let answer = try await register(
                    client, #"{"email":"zone@example.com","password":"correct horse battery","timeZone":"\#(zone)"}"#)
                #expect(answer.status == .unprocessableContent, "\(zone) answered \(answer.status)")
                #expect(Set(try decode(ErrorBody.self, answer).error.details.keys) == ["timeZone"], "\(zone)")
            }
            let both = try await register(client, #"{"email":"zone@example.com","password":"short","timeZone":"Moon/Base"}"#)
            #expect(Set(try decode(ErrorBody.self, both).error.details.keys) == ["password", "timeZone"])
            for (index, zone) in ["UTC", "GMT", "Etc/UTC", "America/Argentina/Buenos_Aires"].enumerated() {
                let accepted = try await register(
                    client, #"{"email":"zone\#(index)@example.com","password":"correct horse battery","timeZone":"\#(zone)"}"#)
                #expect(accepted.status == .created, "\(zone) answered \(accepted.status)")
            }
        }
        #expect(store.published.count == 4)
    }

    @Test("a web client asking for cookies gets its tokens as __Host- cookies and a body without them; the apps' body is unchanged")
    func cookieSession() async throws {
        try await withRoutes { client in
            let answer = try await client.execute(
                uri: "/api/auth/register", method: .post,
                headers: [.contentType: "application/json", HTTPField.Name("X-Session-Transport")!: "cookie"],
                body: ByteBuffer(string: #"{"email":"web@example.com","password":"correct horse battery"}"#))
            #expect(answer.status == .created)
            let cookies = answer.headers[values: .setCookie]
            #expect(cookies.count == 3)
            for name in ["__Host-nutritionai-access", "__Host-nutritionai-refresh", "__Host-nutritionai-csrf"] {
                let cookie = try #require(cookies.first { $0.hasPrefix(name + "=") }, "no \(name) cookie in \(cookies)")
                #expect(cookie.contains("; Path=/") && cookie.contains("; Secure") && cookie.contains("; SameSite=Strict"))
                #expect(cookie.contains("; HttpOnly") == (name != "__Host-nutritionai-csrf"), "HttpOnly on \(cookie)")
                #expect(!cookie.contains("Domain="), "a __Host- cookie has no Domain")
            }
            let body = try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any]
            #expect(body?["tokenType"] as? String == "cookie" && body?["accessToken"] == nil && body?["refreshToken"] == nil)
            let csrfCookie = cookies.first { $0.hasPrefix("__Host-nutritionai-csrf=") }?.split(separator: ";")[0].dropFirst(
                "__Host-nutritionai-csrf=".count)
            #expect(body?["csrfToken"] as? String == csrfCookie.map(String.init) && (csrfCookie?.count ?? 0) >= 40)
            #expect(answer.headers[.cacheControl] == "no-store")

            let app = try await register(client, #"{"email":"app@example.com","password":"correct horse battery"}"#)
            #expect(app.headers[values: .setCookie].isEmpty)
            let appBody = try JSONSerialization.jsonObject(with: Data(buffer: app.body)) as? [String: Any]
            #expect(appBody?["accessToken"] is String && appBody?["tokenType"] as? String == "Bearer")

            for transport in ["Cookie", "cookies", "body", ""] {
                let refused = try await client.execute(
                    uri: "/api/auth/register", method: .post,
                    headers: [.contentType: "application/json", HTTPField.Name("X-Session-Transport")!: transport],
                    body: ByteBuffer(string: #"{"email":"typo@example.com","password":"correct horse battery"}"#))
                #expect(refused.status == .badRequest, "X-Session-Transport: \(transport)")
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: refused.body)).error
                #expect(error.code == "invalid_session_transport" && error.details["X-Session-Transport"] != nil)
            }
            let afterTypos = try await register(client, #"{"email":"typo@example.com","password":"correct horse battery"}"#)
            #expect(afterTypos.status == .created, "a refused transport registered no account")
        }
    }
}
