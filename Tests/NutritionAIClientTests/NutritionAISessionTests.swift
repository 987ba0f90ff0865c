import Foundation
import HTTPTypes
import NutritionAIClient
import OpenAPIRuntime
import Synchronization
import Testing

/// The hand-written session over the generated client, against a scripted transport: the token on every call, one
/// refresh and retry on a 401, the status of a refused sign-in.
@Suite("NutritionAISession")
struct NutritionAISessionTests {
    /// Answers each call from a script and records the requests it saw.
    final class ScriptedTransport: ClientTransport, Sendable {
        let script: Mutex<[(HTTPResponse.Status, String)]>
        let seen = Mutex<[HTTPRequest]>([])
        /// The request bodies, as text ("" without one).
        let bodies = Mutex<[String]>([])

        init(_ script: [(HTTPResponse.Status, String)]) { self.script = Mutex(script) }

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
            seen.withLock { $0.append(request) }
            var text = ""
            if let body { text = try await String(collecting: body, upTo: 1 << 20) }
            bodies.withLock { [text] in $0.append(text) }
            let (status, json) = script.withLock { $0.removeFirst() }
            return (HTTPResponse(status: status, headerFields: [.contentType: "application/json"]), HTTPBody(json))
        }
    }

    static func session(access: String, refresh: String) -> String {
        #"{"token":"\#(access)","accessToken":"\#(access)","tokenType":"Bearer","expiresAt":"2026-05-10T12:15:00Z","expiresIn":900,"#
            + #""refreshToken":"\#(refresh)","sessionId":"6f1c2a1e-0000-4000-8000-000000000001","#
            + #""user":{"id":"6f1c2a1e-0000-4000-8000-000000000002","email":"ada@example.com","displayName":"Ada","createdAt":"2026-05-10T12:00:00Z"},"#
            + #""profile":{"displayName":"Ada","dietPreference":"balanced","weightUnit":"kg","timeZone":"UTC","weekStart":"monday","version":1,"#
            + #""updatedAt":"2026-05-10T12:00:00Z"}}"#
    }

    static let expired = #"{"error":{"code":"token_expired","message":"expired","details":{},"requestId":"r"}}"#
    @Test("after sign-in every call carries the access token; a 401 refreshes once and the call is sent again")
    func refreshOnUnauthorized() async throws {
        let transport = ScriptedTransport([
            (.ok, Self.session(access: "a1", refresh: "r1")), (.unauthorized, Self.expired), (.ok, Self.session(access: "a2", refresh: "r2")),
            // The retried call's answer: refused again, it is answered as it is (no second refresh).
            (.unauthorized, Self.expired),
        ])
        let session = NutritionAISession(serverURL: URL(string: "http://127.0.0.1:8080")!, transport: transport)
        try await session.signIn(email: "ada@example.com", password: "correct horse battery")
        let retried = try await session.api.getUserStats()
        guard case .unauthorized = retried else {
            Issue.record("the retried call's answer was not passed on: \(retried)")
            return
        }
        let seen = transport.seen.withLock { $0 }
        #expect(seen.map(\.path) == ["/api/auth/login", "/api/user/stats", "/api/auth/refresh", "/api/user/stats"])
        #expect(seen[1].headerFields[.authorization] == "Bearer a1" && seen[3].headerFields[.authorization] == "Bearer a2")
        #expect(seen[0].headerFields[.authorization] == nil && seen[2].headerFields[.authorization] == nil, "sign-in and refresh go without a token")
    }

    @Test("registration sends the device's time zone unless told another, so the account's days are the user's from the start")
    func registrationSendsTheZone() async throws {
        let transport = ScriptedTransport([
            (.created, Self.session(access: "a1", refresh: "r1")), (.created, Self.session(access: "a2", refresh: "r2")),
        ])
        let session = NutritionAISession(serverURL: URL(string: "http://127.0.0.1:8080")!, transport: transport)
        try await session.register(email: "ada@example.com", password: "correct horse battery")
        try await session.register(email: "kai@example.com", password: "correct horse battery", timeZone: "Pacific/Auckland")
        let zones = try transport.bodies.withLock { $0 }.map { body in
            (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["timeZone"] as? String
        }
        #expect(zones == [TimeZone.current.identifier, "Pacific/Auckland"])
    }

    @Test("a refused sign-in throws the answer's status")
    func refusedSignIn() async throws {
        let transport = ScriptedTransport([(.unauthorized, #"{"error":{"code":"invalid_credentials","message":"no","details":{},"requestId":"r"}}"#)])
        let session = NutritionAISession(serverURL: URL(string: "http://127.0.0.1:8080")!, transport: transport)
        await #expect {
            try await session.signIn(email: "ada@example.com", password: "wrong password!")
        } throws: { error in
            (error as? NutritionAIError)?.status == 401
        }
    }
}
