import AccessTokens
import AsyncHTTPClient
import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Metrics
import MetricsTestKit
import NIOPosix
import ServiceDefaults
import Testing

@testable import Gateway

@Suite("Gateway proxy against a live upstream")
struct UpstreamProxyTests {
    let tokens = TokenFactory()
    /// The web origin the gateways of these tests allow.
    static let webOrigin = "https://app.nutritionai.test"

    /// An upstream that answers with the headers it received.
    func echoUpstream() -> some ApplicationProtocol {
        let router = Router()
        for path in ["/api/meals/echo", "/api/private/echo", "/api/limited/echo", "/api/auth/echo"] {
            router.get(RouterPath(path)) { request, _ -> [String: String] in
                var seen: [String: String] = [:]
                for field in request.headers { seen[field.name.canonicalName] = field.value }
                seen["query"] = request.uri.query ?? ""
                return seen
            }
        }
        router.post("/api/meals/echo") { request, _ -> String in
            String(buffer: try await request.body.collect(upTo: 1 << 20))
        }
        // Reads the body slowly (a pause every 256 KiB), so its socket and the gateway's upstream connection fill up;
        // answers the body's size and a sum of every 4096th byte weighted by its position (`UploadSample`).
        router.post("/api/uploads/slow-sink") { request, _ -> [String: Int] in
            var sample = UploadSample()
            var sincePause = 0
            for try await chunk in request.body {
                sample.add(chunk.readableBytesView)
                sincePause += chunk.readableBytes
                if sincePause >= 256 << 10 {
                    sincePause = 0
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            return ["bytes": sample.bytes, "sum": sample.sum]
        }
        // Server-Sent Events: one event, a pause longer than the upstream timeout of `streamingTests`, a second event.
        router.get("/api/meals/stream") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "data: one\n\n"))
                    try await Task.sleep(for: .milliseconds(700))
                    try await writer.write(ByteBuffer(string: "data: two\n\n"))
                    try await writer.finish(nil)
                })
        }
        // A stream of events with no end of its own: one event, then a comment every 50 ms until its connection closes.
        router.get("/api/meals/endless-stream") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "data: one\n\n"))
                    while true {
                        try await Task.sleep(for: .milliseconds(50))
                        try await writer.write(ByteBuffer(string: ":\n"))
                    }
                })
        }
        router.post("/api/private/echo") { request, _ -> [String: String] in
            var seen: [String: String] = [:]
            for field in request.headers { seen[field.name.canonicalName] = field.value }
            return seen
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    func settings(upstreamPort: Int) throws -> GatewaySettings {
        let routes = RouteTable(
            upstreams: [
                "meals": [URL(string: "http://127.0.0.1:\(upstreamPort)")!], "auth": [URL(string: "http://127.0.0.1:\(upstreamPort)")!],
                "down": [URL(string: "http://127.0.0.1:1")!],
            ],
            routes: [
                .init(prefix: "/api/auth", upstream: "auth", isPublic: true),
                .init(prefix: "/api/meals", upstream: "meals", isPublic: true),
                .init(prefix: "/api/private", upstream: "meals", isPublic: false),
                .init(prefix: "/api/limited", upstream: "meals", isPublic: true, rateLimit: "tight"),
                .init(prefix: "/api/down", upstream: "down", isPublic: true),
                .init(prefix: "/api/uploads", upstream: "meals", isPublic: true, maxBodyBytes: 64 << 20),
                .init(prefix: "/api/private-uploads", upstream: "meals", isPublic: false, maxBodyBytes: 64 << 20),
            ],
            rateLimits: ["tight": RateLimitPolicy(name: "tight", limit: 2, windowSeconds: 60, per: .ip)])
        var http = try HTTPServerSettings(config: .init(provider: InMemoryProvider(values: [:])), defaultPort: 0)
        http.maxBodyBytes = 64
        return GatewaySettings(
            http: http, routes: routes, connectTimeout: .seconds(1), upstreamTimeout: .seconds(5), healthTimeout: .seconds(1),
            tokenPolicy: tokens.policy, jwksURL: nil, jwksRefreshInterval: .seconds(300), trustedProxies: [],
            webOrigins: try WebOrigins(Self.webOrigin))
    }

    /// A gateway in front of the echo upstream; its metrics go to `metrics`; the methods of each path are
    /// `declaredMethods` (none: the echo upstream's paths are not the API document's).
    func withGateway(
        metrics: any MetricsFactory = TestMetrics(), verifier: AccessTokenVerifier? = nil, declaredMethods: DeclaredMethods = .none,
        tracing: PassThroughTracing? = nil, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await echoUpstream().test(.live) { upstream in
            try await withGateway(
                upstreamPort: upstream.port!, metrics: metrics, verifier: verifier, declaredMethods: declaredMethods, tracing: tracing, body)
        }
    }

    /// A gateway whose `meals` upstream listens on `upstreamPort`.
    func withGateway(
        upstreamPort: Int, metrics: any MetricsFactory = TestMetrics(), verifier: AccessTokenVerifier? = nil,
        declaredMethods: DeclaredMethods = .none, tracing: PassThroughTracing? = nil,
        _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await tokens.withGateway(
            settings: try settings(upstreamPort: upstreamPort), metrics: metrics, verifier: verifier, declaredMethods: declaredMethods,
            tracing: tracing, body)
    }

    @Test("client identity headers are stripped, the request id and query are passed on")
    func headersAndQuery() async throws {
        try await withGateway { gateway in
            try await gateway.execute(
                uri: "/api/meals/echo?limit=5", method: .get,
                headers: [HTTPField.Name("X-User-Id")!: "someone-else", .requestId: "trace-1", .accept: "application/json"]
            ) { response in
                #expect(response.status == .ok)
                let seen = try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
                #expect(seen["x-user-id"] == nil)
                #expect(seen["x-request-id"] == "trace-1")
                #expect(seen["accept"] == "application/json")
                #expect(seen["query"] == "limit=5")
                #expect(response.headers[.requestId] == "trace-1")
            }
        }
    }

    @Test("request bodies reach the upstream; bodies over the limit are refused with 413")
    func bodies() async throws {
        try await withGateway { gateway in
            try await gateway.execute(uri: "/api/meals/echo", method: .post, body: ByteBuffer(string: "hello")) { response in
                #expect(String(buffer: response.body) == "hello")
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .post, body: ByteBuffer(repeating: 0x41, count: 65)) { response in
                #expect(response.status == .contentTooLarge)
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error.code == "payload_too_large")
            }
        }
    }

    /// CONNECT is not tried here: over a real connection the HTTP parser takes it as the start of a tunnel and the
    /// connection ends before any route is matched, so nothing reaches an upstream.
    @Test("TRACE, with or without a body, is 405 in the error shape, never a 502")
    func unsupportedMethods() async throws {
        try await withGateway { gateway in
            for body in [nil, ByteBuffer(string: "{}")] {
                try await gateway.execute(uri: "/api/meals/echo", method: .trace, body: body) { response in
                    #expect(response.status == .methodNotAllowed)
                    let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                    #expect(body.error.code == "method_not_allowed")
                }
            }
        }
    }

    @Test("a safe request whose connection the upstream closed unanswered is sent once more; a write is not")
    func closedConnectionRetry() async throws {
        let upstream = try await ConnectionDroppingUpstream.start(dropping: 1)
        try await withGateway(upstreamPort: upstream.port) { gateway in
            try await gateway.execute(uri: "/api/meals/today", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok")
            }
        }
        #expect(upstream.requestLines == ["GET /api/meals/today HTTP/1.1", "GET /api/meals/today HTTP/1.1"])
        try await upstream.stop()

        let alwaysClosing = try await ConnectionDroppingUpstream.start(dropping: 3)
        try await withGateway(upstreamPort: alwaysClosing.port) { gateway in
            try await gateway.execute(uri: "/api/meals/today", method: .get) { response in
                #expect(response.status == .badGateway)
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error.code == "bad_gateway")
            }
            try await gateway.execute(uri: "/api/meals", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .badGateway)
            }
        }
        #expect(
            alwaysClosing.requestLines == [
                "GET /api/meals/today HTTP/1.1", "GET /api/meals/today HTTP/1.1", "POST /api/meals HTTP/1.1",
            ])
        try await alwaysClosing.stop()
    }

    @Test("an unreachable upstream is a 503 with Retry-After in the error shape")
    func unreachableUpstream() async throws {
        try await withGateway { gateway in
            try await gateway.execute(uri: "/api/down/anything", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] != nil)
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error.code == "upstream_unavailable")
            }
        }
    }

    @Test("/health reports each upstream and is 503 while one is down")
    func aggregatedHealth() async throws {
        try await withGateway { gateway in
            try await gateway.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let report = try JSONDecoder().decode(GatewayHealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.services["down"] == "unreachable")
                #expect(report.services["meals"] == "not_ready")  // the echo upstream has no /health/ready
                #expect(report.status == "degraded")
            }
        }
    }

    @Test("an upstream that is ready but reports degraded events shows as degraded; one without a report as ready")
    func degradedUpstreamState() {
        let degraded = ByteBuffer(string: #"{"status":"degraded","service":"meals","checks":{"events":"degraded"}}"#)
        #expect(GatewayHealthController.state(status: .ok, body: degraded) == "degraded")
        #expect(GatewayHealthController.state(status: .ok, body: ByteBuffer(string: #"{"status":"ready"}"#)) == "ready")
        #expect(GatewayHealthController.state(status: .ok, body: nil) == "ready")
        #expect(GatewayHealthController.state(status: .serviceUnavailable, body: degraded) == "not_ready")
    }

    @Test("/openapi.json serves the repository's OpenAPI document without a token, with an ETag that answers 304")
    func apiDocument() async throws {
        let repositoryCopy = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../gateway/Resources/openapi.json"))
        try await withGateway { gateway in
            let etag = try await gateway.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(Data(buffer: response.body) == repositoryCopy)
                let document = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(document?["openapi"] as? String == "3.1.0")
                return try #require(response.headers[.eTag])
            }
            try await gateway.execute(uri: "/openapi.json", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await gateway.execute(uri: "/openapi.json", method: .get, headers: [.ifNoneMatch: "\"other\", W/\(etag)"]) { response in
                #expect(response.status == .notModified)
            }
            try await gateway.execute(uri: "/openapi.json", method: .get, headers: [.ifNoneMatch: "\"stale\""]) { response in
                #expect(response.status == .ok)
            }
        }
    }
}
