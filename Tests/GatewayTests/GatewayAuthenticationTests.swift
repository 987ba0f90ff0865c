import AccessTokens
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import Gateway

extension UpstreamProxyTests {
    func echoed(_ response: TestResponse) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
    }

    func errorCode(_ response: TestResponse) throws -> String {
        try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error.code
    }

    @Test("a private route needs a bearer token: 401 with WWW-Authenticate in the error shape")
    func privateRouteWithoutToken() async throws {
        try await withGateway { gateway in
            try await gateway.execute(uri: "/api/private/echo", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="nutritionai""#)
                let code = try errorCode(response)
                #expect(code == "unauthenticated")
            }
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.authorization: "Basic dXNlcjpwYXNz"]) { response in
                #expect(response.status == .unauthorized)
                let code = try errorCode(response)
                #expect(code == "invalid_token")
            }
        }
    }

    @Test("forged and expired tokens are 401; an expired one says token_expired")
    func badTokens() async throws {
        let now = Date()
        let expired = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(-2000), expiresAt: now.addingTimeInterval(-10)))
        let forged = try await tokens.hmacConfusionToken()
        try await withGateway { gateway in
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.authorization: "Bearer \(expired)"]) { response in
                #expect(response.status == .unauthorized)
                let code = try errorCode(response)
                #expect(code == "token_expired")
                #expect(response.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            }
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: [.authorization: "Bearer \(forged)"]) { response in
                #expect(response.status == .unauthorized)
                let code = try errorCode(response)
                #expect(code == "invalid_token")
            }
        }
    }

    @Test("a valid token reaches the upstream as X-User-Id and X-Session-Id, replacing any the client sent; the token itself only auth")
    func verifiedIdentityPassedOn() async throws {
        let token = try await tokens.token()
        try await withGateway { gateway in
            let headers: HTTPFields = [
                .authorization: "Bearer \(token)", HTTPField.Name("X-User-Id")!: UUID().uuidString,
                HTTPField.Name("X-Real-IP")!: "6.6.6.6",
            ]
            try await gateway.execute(uri: "/api/private/echo", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                let seen = try echoed(response)
                #expect(seen["x-user-id"] == tokens.userId.uuidString.lowercased())
                #expect(seen["x-session-id"] == tokens.sessionId.uuidString.lowercased())
                #expect(seen["x-real-ip"] != "6.6.6.6")
                #expect(seen["authorization"] == nil, "the token reaches auth only")
            }
            // Auth, which issues the token, gets it (sign-out and session routes read it).
            try await gateway.execute(uri: "/api/auth/echo", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .ok)
                #expect((try? echoed(response))?["authorization"] == "Bearer \(token)")
            }
        }
    }

    @Test("on a public route a valid token identifies the caller; a bad one does not block but its problem is passed on")
    func publicRouteTokens() async throws {
        let token = try await tokens.token()
        try await withGateway { gateway in
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                let seen = try echoed(response)
                #expect(seen["x-user-id"] == tokens.userId.uuidString.lowercased())
            }
            try await gateway.execute(
                uri: "/api/meals/echo", method: .get,
                headers: [.authorization: "Bearer nonsense", HTTPField.Name("X-Token-Problem")!: "token_expired"]
            ) { response in
                #expect(response.status == .ok)
                let seen = try echoed(response)
                #expect(seen["x-user-id"] == nil)
                #expect(seen["x-token-problem"] == "invalid_token", "the gateway's finding replaces the client's claim")
            }
            let now = Date()
            let expired = try await tokens.token(tokens.claims(issuedAt: now.addingTimeInterval(-2000), expiresAt: now.addingTimeInterval(-10)))
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [.authorization: "Bearer \(expired)"]) { response in
                #expect(response.status == .ok, "a stale token does not block a public route")
                let seen = try echoed(response)
                #expect(seen["x-token-problem"] == "token_expired")
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [HTTPField.Name("X-Token-Problem")!: "token_expired"]) {
                response in
                let seen = try echoed(response)
                #expect(seen["x-token-problem"] == nil, "clients cannot set it")
            }
        }
    }

    @Test("a rate-limited route answers 429 with Retry-After and the RateLimit headers once its limit is used")
    func rateLimited() async throws {
        try await withGateway { gateway in
            for remaining in [1, 0] {
                try await gateway.execute(uri: "/api/limited/echo", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == #""tight";q=2;w=60"#)
                    #expect(response.headers[HTTPField.Name("RateLimit")!]?.hasPrefix(#""tight";r=\#(remaining);t="#) == true)
                }
            }
            try await gateway.execute(uri: "/api/limited/echo", method: .get) { response in
                #expect(response.status == .tooManyRequests)
                let code = try errorCode(response)
                #expect(code == "rate_limited")
                #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 > 0)
                #expect(response.headers[HTTPField.Name("RateLimit")!]?.hasPrefix(#""tight";r=0;"#) == true)
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .get) { response in
                #expect(response.status == .ok, "other routes are not limited by that policy")
            }
        }
    }
}
