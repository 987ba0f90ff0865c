import AccessTokens
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// NutritionAI's web sign-in by cookie through the gateway and the real auth service: cookies instead of tokens in the
/// body, the access cookie standing for the bearer token, refresh by cookie, the CSRF defence (a cross-site request is
/// refused), and sign-out clearing the cookies. The apps' header flow is covered by the identity tests, unchanged.
@Suite("Web sign-in by cookie through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct WebSignInTests {
    static let transport = HTTPField.Name(SessionCookies.transportHeader)!
    static let csrfHeader = HTTPField.Name(SessionCookies.csrfHeader)!

    /// The browser's cookie jar, as much of it as these tests need: name to value, from `Set-Cookie` answers.
    struct Jar {
        var cookies: [String: String] = [:]

        mutating func take(_ response: TestResponse) {
            for field in response.headers[values: .setCookie] {
                let pair = field.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
                let name = String(pair[0])
                let value = pair.count > 1 ? String(pair[1]) : ""
                cookies[name] = field.contains("Max-Age=0") || value.isEmpty ? nil : value
            }
        }

        var header: String { cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        var csrf: String { cookies[SessionCookies.csrf] ?? "" }
    }

    @Test("register by cookie, read by cookie, refresh by cookie, a cross-site request refused, sign-out clears the cookies")
    func cookieSession() async throws {
        try await IdentityStack.run { stack in
            var jar = Jar()
            let origin = IdentityStack.webOrigin
            let registered = try await stack.gateway.call(
                .post, "/api/auth/register", json: #"{"email":"web-\#(UUID().uuidString.prefix(8))@example.com","password":"correct horse battery"}"#,
                headers: [Self.transport: "cookie", .origin: origin])
            #expect(registered.status == .created)
            jar.take(registered)
            #expect(Set(jar.cookies.keys) == [SessionCookies.access, SessionCookies.refresh, SessionCookies.csrf])
            #expect(!String(buffer: registered.body).contains("accessToken"), "a cookie session's body carries no token")

            let me = try await stack.gateway.call(.get, "/api/auth/me", headers: [.cookie: jar.header])
            #expect(me.status == .ok, "the access cookie did not sign the read in: \(me.status)")

            let crossSite = try await stack.gateway.call(
                .put, "/api/users/profile", json: #"{"dailyCalorieGoal":1500}"#,
                headers: [.cookie: jar.header, .origin: "https://evil.example", Self.csrfHeader: jar.csrf])
            #expect(crossSite.status == .forbidden && crossSite.errorCode == "csrf_rejected")
            let sameSite = try await stack.gateway.call(
                .put, "/api/users/profile", json: #"{"dailyCalorieGoal":1500}"#,
                headers: [.cookie: jar.header, .origin: origin, Self.csrfHeader: jar.csrf])
            #expect(sameSite.status == .ok)

            let oldAccess = jar.cookies[SessionCookies.access]
            let refreshed = try await stack.gateway.call(
                .post, "/api/auth/refresh", headers: [.cookie: jar.header, .origin: origin, Self.csrfHeader: jar.csrf, Self.transport: "cookie"])
            #expect(refreshed.status == .ok, "refresh by cookie answered \(refreshed.status): \(String(buffer: refreshed.body))")
            jar.take(refreshed)
            #expect(jar.cookies[SessionCookies.access] != nil && jar.cookies[SessionCookies.access] != oldAccess)

            let loggedOut = try await stack.gateway.call(
                .post, "/api/auth/logout", headers: [.cookie: jar.header, .origin: origin, Self.csrfHeader: jar.csrf])
            #expect(loggedOut.status == .noContent)
            jar.take(loggedOut)
            #expect(jar.cookies.isEmpty, "sign-out left \(jar.cookies.keys.sorted())")
        }
    }
}
