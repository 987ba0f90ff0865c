import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import SyncContracts
import Testing

@testable import Gateway

/// The composed sync routes through the whole gateway (route match, token, rate limit) against fake area services.
@Suite("Gateway sync composition against fake areas")
struct SyncRoutesTests {
    let tokens = TokenFactory()

    /// A gateway whose auth, meals and metrics upstreams are `areas` (metrics at a closed port when `metricsDown`),
    /// with the sync routes as the shipped routes file has them.
    func withGateway(
        _ areas: FakeSyncAreas, metricsDown: Bool = false, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await areas.application().test(.live) { upstream in
            let base = URL(string: "http://127.0.0.1:\(upstream.port!)")!
            let routes = RouteTable(
                upstreams: ["auth": [base], "meals": [base], "metrics": [metricsDown ? URL(string: "http://127.0.0.1:1")! : base]],
                routes: [
                    .init(prefix: "/api/sync/changes", upstream: RouteTable.gatewayUpstream, isPublic: false, rateLimit: "sync"),
                    .init(prefix: "/api/sync/conflicts", upstream: RouteTable.gatewayUpstream, isPublic: false, rateLimit: "sync"),
                    .init(prefix: "/api/sync/import", upstream: RouteTable.gatewayUpstream, isPublic: false, rateLimit: "sync"),
                    .init(prefix: "/api/sync/profile", upstream: "auth", isPublic: false),
                    .init(prefix: "/api/sync/meals", upstream: "meals", isPublic: false),
                    .init(prefix: "/api/sync/metrics", upstream: "metrics", isPublic: false),
                ],
                rateLimits: ["sync": RateLimitPolicy(name: "sync", limit: 600, windowSeconds: 3600, per: .user)])
            try routes.validate()
            try await tokens.withGateway(settings: try tokens.settings(routes: routes), body)
        }
    }

    func authorized(_ extra: HTTPFields = [:]) async throws -> HTTPFields {
        var headers: HTTPFields = [.authorization: "Bearer \(try await tokens.token())"]
        headers.append(contentsOf: extra)
        return headers
    }

    static func errorCode(_ response: TestResponse) throws -> String {
        try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error.code
    }

    static func page(_ response: TestResponse) throws -> SyncChangePage<JSONValue> {
        try SyncAreaAnswer.decoder.decode(SyncChangePage<JSONValue>.self, from: Data(buffer: response.body))
    }

    @Test("the changes of all areas merge in area order and page to the end with the composite cursor")
    func changesPaging() async throws {
        let areas = FakeSyncAreas(feeds: ["profile": [3], "meals": [1, 2, 5, 8], "metrics": [4, 6]])
        let headers = try await authorized()
        try await withGateway(areas) { gateway in
            var since = "0"
            var ids: [String] = []
            var pages = 0
            while pages < 20 {
                pages += 1
                let page = try await gateway.execute(uri: "/api/sync/changes?since=\(since)&limit=3", method: .get, headers: headers) {
                    response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.rateLimitPolicy] == #""sync";q=600;w=3600"#)
                    return try Self.page(response)
                }
                #expect(page.changes.count <= 3)
                ids += page.changes.map(\.id)
                since = page.nextCursor
                if !page.hasMore { break }
            }
            #expect(ids == ["profile-3", "meals-1", "meals-2", "meals-5", "meals-8", "metrics-4", "metrics-6"])
            #expect(pages == 3)
            // The last cursor is caught up: nothing new, the same cursor back.
            try await gateway.execute(uri: "/api/sync/changes?since=\(since)", method: .get, headers: headers) { response in
                let page = try Self.page(response)
                #expect(page.changes.isEmpty)
                #expect(page.nextCursor == since)
                #expect(!page.hasMore)
            }
        }
    }

    @Test("a change's data and millisecond times pass through the merge unchanged")
    func changeBodies() async throws {
        let areas = FakeSyncAreas(feeds: ["meals": [1]])
        let headers = try await authorized()
        try await withGateway(areas) { gateway in
            try await gateway.execute(uri: "/api/sync/changes", method: .get, headers: headers) { response in
                let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let change = try #require((body["changes"] as? [[String: Any]])?.first)
                #expect(change["modifiedAt"] as? String == "2026-09-21T14:13:20.125Z")
                #expect((change["data"] as? [String: Any])?["name"] as? String == "meals 1")
                #expect(change["deletedAt"] == nil)
            }
        }
    }

    @Test("the caller's identity, request id and trace context reach every area")
    func identityHeaders() async throws {
        let areas = FakeSyncAreas()
        let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let headers = try await authorized([
            .requestId: "sync-req-1", HTTPField.Name("traceparent")!: traceparent, HTTPField.Name("X-User-Id")!: "someone-else",
        ])
        try await withGateway(areas) { gateway in
            try await gateway.execute(uri: "/api/sync/changes?limit=5", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
            }
        }
        let received = areas.requests
        #expect(
            Set(received.map(\.path)) == [
                "/api/sync/profile/changes?since=0&limit=5", "/api/sync/meals/changes?since=0&limit=5", "/api/sync/metrics/changes?since=0&limit=5",
            ])
        for request in received {
            #expect(request.headers["x-user-id"] == tokens.userId.uuidString.lowercased())
            #expect(request.headers["x-session-id"] == tokens.sessionId.uuidString.lowercased())
            #expect(request.headers["x-request-id"] == "sync-req-1")
            #expect(request.headers["traceparent"] == traceparent)
            #expect(request.headers["authorization"] == nil)
        }
    }

    @Test("410 from one area is 410 sync_cursor_expired; an area down or failing is 503, never a partial page")
    func areaFailures() async throws {
        let headers = try await authorized()
        try await withGateway(FakeSyncAreas(feeds: ["meals": [1]], expired: ["metrics"])) { gateway in
            try await gateway.execute(uri: "/api/sync/changes?since=0", method: .get, headers: headers) { response in
                #expect(response.status == .gone)
                let code = try Self.errorCode(response)
                #expect(code == "sync_cursor_expired")
            }
        }
        try await withGateway(FakeSyncAreas(feeds: ["meals": [1]]), metricsDown: true) { gateway in
            for uri in ["/api/sync/changes", "/api/sync/conflicts"] {
                try await gateway.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .serviceUnavailable, "\(uri)")
                    #expect(response.headers[.retryAfter] != nil)
                    let code = try Self.errorCode(response)
                    #expect(code == "upstream_unavailable")
                }
            }
        }
        try await withGateway(FakeSyncAreas(feeds: ["meals": [1]], failing: ["profile"])) { gateway in
            try await gateway.execute(uri: "/api/sync/changes", method: .get, headers: headers) { response in
                #expect(response.status == .serviceUnavailable)
                let code = try Self.errorCode(response)
                #expect(code == "upstream_unavailable")
            }
        }
    }

    @Test("a cursor the gateway did not make is 422 invalid_cursor; a limit out of range 422")
    func badQueries() async throws {
        let headers = try await authorized()
        try await withGateway(FakeSyncAreas()) { gateway in
            for uri in ["/api/sync/changes?since=17", "/api/sync/conflicts?cursor=abc"] {
                try await gateway.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .unprocessableContent, "\(uri)")
                    let code = try Self.errorCode(response)
                    #expect(code == "invalid_cursor")
                }
            }
            for uri in ["/api/sync/changes?limit=501", "/api/sync/conflicts?limit=0"] {
                try await gateway.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .unprocessableContent, "\(uri)")
                }
            }
        }
    }

    @Test("the composed routes need a token: 401 without one, and no area is called")
    func unauthenticated() async throws {
        let areas = FakeSyncAreas()
        try await withGateway(areas) { gateway in
            for (uri, method) in [("/api/sync/changes", HTTPRequest.Method.get), ("/api/sync/conflicts", .get), ("/api/sync/import", .post)] {
                try await gateway.execute(uri: uri, method: method, body: ByteBuffer(string: #"{"meals":[{"id":"a"}]}"#)) { response in
                    #expect(response.status == .unauthorized, "\(uri)")
                    let code = try Self.errorCode(response)
                    #expect(code == "unauthenticated")
                }
            }
        }
        #expect(areas.requests.isEmpty)
    }

    @Test("an import is split to the meals and metrics imports with the Idempotency-Key; results in order with a summary")
    func importSplit() async throws {
        let areas = FakeSyncAreas()
        let headers = try await authorized([HTTPField.Name("Idempotency-Key")!: "key-1", .contentType: "application/json"])
        let body =
            #"{"meals":[{"id":"m1","name":"Toast"},{"id":"m2"},{"name":"no id"}],"weighIns":[{"date":"2026-05-01","weight":70},{"date":"2026-05-02","weight":71}]}"#
        try await withGateway(areas) { gateway in
            try await gateway.execute(uri: "/api/sync/import", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                let answer = try JSONDecoder().decode(SyncImportResponse.self, from: Data(buffer: response.body))
                #expect(answer.results.map(\.id) == ["m1", "m2", "", "2026-05-01", "2026-05-02"])
                #expect(answer.summary == .init(created: 2, updated: 1, alreadyPresent: 1, rejected: 1))
                #expect(response.headers[.idempotentReplayed] == "false", "a first answer with a key says so, as the services' do")
            }
        }
        let received = Dictionary(uniqueKeysWithValues: areas.requests.map { ($0.path, $0) })
        #expect(received.count == 2)
        let meals = try #require(received["/api/sync/meals/import"])
        let metrics = try #require(received["/api/sync/metrics/import"])
        #expect(meals.body == #"{"meals":[{"id":"m1","name":"Toast"},{"id":"m2"},{"name":"no id"}]}"#)
        #expect(metrics.body == #"{"weighIns":[{"date":"2026-05-01","weight":70},{"date":"2026-05-02","weight":71}]}"#)
        for request in [meals, metrics] {
            #expect(request.headers["idempotency-key"] == "key-1")
            #expect(request.headers["x-user-id"] == tokens.userId.uuidString.lowercased())
        }
    }

    @Test("an import with only meals calls only meals; a replay of both parts is marked replayed")
    func importOnlyMeals() async throws {
        let areas = FakeSyncAreas()
        let headers = try await authorized([HTTPField.Name("Idempotency-Key")!: "replayed"])
        try await withGateway(areas) { gateway in
            try await gateway.execute(
                uri: "/api/sync/import", method: .post, headers: headers, body: ByteBuffer(string: #"{"meals":[{"id":"m1"}],"weighIns":[]}"#)
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.idempotentReplayed] == "true")
            }
        }
        #expect(areas.requests.map(\.path) == ["/api/sync/meals/import"])
    }

    @Test("imports with no items or over 500 are 422; a malformed body 400; an area's refusal passes as it came")
    func importRefusals() async throws {
        let areas = FakeSyncAreas(refusingImports: ["metrics"])
        let headers = try await authorized()
        let tooMany =
            "{\"meals\":[" + Array(repeating: "{}", count: 300).joined(separator: ",") + "],\"weighIns\":["
            + Array(repeating: "{}", count: 201).joined(separator: ",") + "]}"
        try await withGateway(areas) { gateway in
            for body in [#"{}"#, #"{"meals":[],"weighIns":[]}"#, tooMany] {
                try await gateway.execute(uri: "/api/sync/import", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .unprocessableContent)
                    let code = try Self.errorCode(response)
                    #expect(code == "validation_failed")
                }
            }
            try await gateway.execute(uri: "/api/sync/import", method: .post, headers: headers, body: ByteBuffer(string: #"{"meals":3}"#)) {
                response in
                #expect(response.status == .unprocessableContent)
                let code = try Self.errorCode(response)
                #expect(code == "validation_failed")
            }
            try await gateway.execute(
                uri: "/api/sync/import", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"meals":[{"id":"m1"}],"weighIns":[{"date":"2026-05-01"}]}"#)
            ) { response in
                #expect(response.status == .unprocessableContent)
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error
                #expect(error.message == "refused by metrics")
            }
        }
        #expect(areas.requests.map(\.path).sorted() == ["/api/sync/meals/import", "/api/sync/metrics/import"])
    }

    @Test("an import whose area is down is 503 in the error shape")
    func importAreaDown() async throws {
        let headers = try await authorized()
        try await withGateway(FakeSyncAreas(), metricsDown: true) { gateway in
            try await gateway.execute(
                uri: "/api/sync/import", method: .post, headers: headers, body: ByteBuffer(string: #"{"weighIns":[{"date":"2026-05-01"}]}"#)
            ) { response in
                #expect(response.status == .serviceUnavailable)
                let code = try Self.errorCode(response)
                #expect(code == "upstream_unavailable")
            }
        }
    }
}
