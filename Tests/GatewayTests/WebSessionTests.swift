import AccessTokens
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import Gateway

/// Web sign-in by cookie at the gateway: the access cookie stands for the bearer token, unsafe requests sent with
/// the cookies must come from the web origin with the CSRF token, and CORS answers that origin alone.
extension UpstreamProxyTests {
    static let csrfToken = "csrf-123"

    func cookies(_ token: String, csrf: Bool = true) -> String {
        var cookies = "\(SessionCookies.access)=\(token); theme=dark"
        if csrf { cookies += "; \(SessionCookies.csrf)=\(Self.csrfToken)" }
        return cookies
    }

    @Test("the access cookie signs a request in when no Authorization header is sent; a bad cookie is 401")
    func cookieSignsIn() async throws {
        let token = try await tokens.token()
        try await withGateway { gateway in
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.cookie: cookies(token)]) { response in
                #expect(response.status == .ok)
                let seen = try? echoed(response)
                #expect(seen?["x-user-id"] == tokens.userId.uuidString.lowercased())
                #expect(seen?["cookie"] == "theme=dark", "the session cookies reach only auth: \(seen?["cookie"] ?? "none")")
            }
            // A second access cookie (planted from a sibling domain) makes the session ambiguous: not trusted.
            let planted = "\(SessionCookies.access)=\(token); \(SessionCookies.access)=\(token)"
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.cookie: planted]) { response in
                #expect(response.status == .unauthorized)
            }
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.cookie: cookies("not-a-token")]) { response in
                #expect(response.status == .unauthorized)
                #expect((try? errorCode(response)) == "invalid_token")
            }
        }
    }

    @Test("an unsafe request with the cookie: from the web origin with the CSRF token it passes; cross-site or without the token it is 403")
    func csrf() async throws {
        let token = try await tokens.token()
        let csrfHeader = HTTPField.Name(SessionCookies.csrfHeader)!
        try await withGateway { gateway in
            let sameSite: HTTPFields = [.cookie: cookies(token), .origin: Self.webOrigin, csrfHeader: Self.csrfToken]
            try await gateway.execute(uri: "/api/private/echo", method: .post, headers: sameSite) { response in
                #expect(response.status == .ok)
                #expect((try? echoed(response))?["x-user-id"] == tokens.userId.uuidString.lowercased())
            }
            let refusals: [(String, HTTPFields)] = [
                ("cross-site", [.cookie: cookies(token), .origin: "https://evil.example", csrfHeader: Self.csrfToken]),
                ("no origin", [.cookie: cookies(token), csrfHeader: Self.csrfToken]),
                ("no token", [.cookie: cookies(token), .origin: Self.webOrigin]),
                ("wrong token", [.cookie: cookies(token), .origin: Self.webOrigin, csrfHeader: "csrf-124"]),
                ("no csrf cookie", [.cookie: cookies(token, csrf: false), .origin: Self.webOrigin, csrfHeader: Self.csrfToken]),
            ]
            for (name, headers) in refusals {
                try await gateway.execute(uri: "/api/private/echo", method: .post, headers: headers) { response in
                    #expect(response.status == .forbidden, "\(name) answered \(response.status)")
                    #expect((try? errorCode(response)) == "csrf_rejected", "\(name)")
                }
            }
            // A Referer from the web origin stands for a missing Origin.
            let referred: HTTPFields = [.cookie: cookies(token), .referer: Self.webOrigin + "/diary", csrfHeader: Self.csrfToken]
            try await gateway.execute(uri: "/api/private/echo", method: .post, headers: referred) { response in
                #expect(response.status == .ok)
            }
            // The apps' bearer token needs none of it, cookies or not; reads need none of it either.
            try await gateway.execute(
                uri: "/api/private/echo", method: .post, headers: [.authorization: "Bearer \(token)", .cookie: cookies(token, csrf: false)]
            ) { response in
                #expect(response.status == .ok)
            }
            try await gateway.execute(
                uri: "/api/private/echo", method: .get, headers: [.cookie: cookies(token, csrf: false), .origin: "https://evil.example"]
            ) { response in
                #expect(response.status == .ok && response.headers[.accessControlAllowOrigin] == nil)
            }
            // Public routes (a refresh) are defended the same way.
            try await gateway.execute(
                uri: "/api/meals/echo", method: .post,
                headers: [.cookie: cookies(token), .origin: "https://evil.example", csrfHeader: Self.csrfToken],
                body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .forbidden)
            }
            // Asking for a cookie session (a web sign-in) is refused from another origin.
            let signIn: HTTPFields = [HTTPField.Name(SessionCookies.transportHeader)!: "cookie", .origin: "https://evil.example"]
            try await gateway.execute(uri: "/api/meals/echo", method: .post, headers: signIn, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .forbidden)
            }
        }
    }

    @Test("CORS: a preflight from the web origin is 204 with credentials allowed; from another origin 403; answers name the origin, never *")
    func cors() async throws {
        try await withGateway { gateway in
            let preflight: HTTPFields = [.origin: Self.webOrigin, .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "x-csrf-token"]
            try await gateway.execute(uri: "/api/private/echo", method: .options, headers: preflight) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == Self.webOrigin)
                #expect(response.headers[.accessControlAllowCredentials] == "true")
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
                #expect(response.headers[.accessControlAllowHeaders]?.contains("X-CSRF-Token") == true)
            }
            let foreign: HTTPFields = [.origin: "https://evil.example", .accessControlRequestMethod: "POST"]
            try await gateway.execute(uri: "/api/private/echo", method: .options, headers: foreign) { response in
                #expect(response.status == .forbidden && response.headers[.accessControlAllowOrigin] == nil)
                #expect((try? errorCode(response)) == "origin_not_allowed")
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [.origin: Self.webOrigin]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == Self.webOrigin && response.headers[.vary] == "Origin")
                #expect(response.headers[.accessControlExposeHeaders]?.contains("X-Request-Id") == true)
            }
            // Error answers carry the headers too, so the page can read why.
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.origin: Self.webOrigin]) { response in
                #expect(response.status == .unauthorized && response.headers[.accessControlAllowOrigin] == Self.webOrigin)
            }
        }
    }

    @Test("web origins are read as scheme://host[:port]; anything else is refused at start")
    func origins() throws {
        let origins = try WebOrigins(" https://app.nutritionai.test , http://localhost:3000")
        #expect(origins.allows("https://app.nutritionai.test") && origins.allows("http://localhost:3000"))
        #expect(!origins.allows("https://app.nutritionai.test.evil") && !origins.allows(nil) && !origins.allows("null"))
        for bad in ["https://app.test/path", "*", "app.test", "ftp://app.test"] {
            #expect(throws: WebOrigins.InvalidOrigin.self, "\(bad)") { try WebOrigins(bad) }
        }
        #expect(WebOrigins.origin(of: "https://App.Test:8443/x?y") == "https://app.test:8443")
    }
}
