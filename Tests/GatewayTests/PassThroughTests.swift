import AccessTokens
import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import NIOCore
import NIOPosix
import ServiceDefaults
import Testing

@testable import Gateway

/// The pass-through (`PassThroughHandler`), the gateway's one forwarding path: how it admits requests that must wait
/// (a token's first request), what it leaves to the router (the gateway's own routes), and the order of its answers.
/// The other proxy tests run through it too (every `withGateway` is a live gateway with it).
extension UpstreamProxyTests {
    /// `gateway_pass_through_requests_total` of `outcome`.
    private func passThroughCount(_ metrics: TestMetrics, _ outcome: String) -> Int64 {
        metrics.counterTotal(label: "gateway_pass_through_requests_total", dimensions: [("outcome", outcome)])
    }

    @Test("a token's first request waits for its verification and the next ones do not; both reach the upstream with the same identity headers")
    func verifiedTokenPassesThrough() async throws {
        let metrics = TestMetrics()
        let token = try await tokens.token()
        try await withGateway(metrics: metrics) { gateway in
            var seenUsers: [String?] = []
            for _ in 1...2 {
                try await gateway.execute(
                    uri: "/api/private/echo", method: .get,
                    headers: [.authorization: "Bearer \(token)", HTTPField.Name("X-User-Id")!: "someone-else", .requestId: "pass-1"]
                ) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.requestId] == "pass-1")
                    let seen = try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
                    seenUsers.append(seen["x-user-id"])
                    #expect(seen["x-session-id"] == tokens.sessionId.uuidString.lowercased())
                    #expect(seen["x-request-id"] == "pass-1")
                    #expect(seen["authorization"] == nil, "the token reaches auth only")
                }
            }
            #expect(seenUsers == [tokens.userId.uuidString.lowercased(), tokens.userId.uuidString.lowercased()])
        }
        #expect(metrics.counterTotal(label: "gateway_pass_through_admission_waits_total") == 1, "only the first request waited")
        #expect(passThroughCount(metrics, "forwarded") == 2)
        #expect(passThroughCount(metrics, "delegated") == 0)
    }

    @Test("a method the API document does not declare for a known path (TRACE, the gateway's own paths) is 405 with Allow and reaches no upstream")
    func undeclaredMethod() async throws {
        let metrics = TestMetrics()
        let token = try await tokens.token()
        try await withGateway(metrics: metrics, declaredMethods: try APIDocumentController.bundled().declaredMethods) { gateway in
            try await gateway.execute(uri: "/api/meals/echo", method: .patch, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "DELETE, GET, PUT")
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error
                #expect(error.code == "method_not_allowed" && error.details["method"] != nil)
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .trace) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "DELETE, GET, PUT", "TRACE is one more undeclared method")
            }
            for path in ["/health", "/openapi.json"] {
                try await gateway.execute(uri: path, method: .patch) { response in
                    #expect(response.status == .methodNotAllowed, "the gateway's own \(path) as a proxied path")
                    #expect(response.headers[.allow] == "GET")
                    let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error
                    #expect(error.code == "method_not_allowed")
                }
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .ok, "a declared method still passes")
            }
        }
        #expect(passThroughCount(metrics, "forwarded") == 1, "the refused requests reached no upstream")
        #expect(passThroughCount(metrics, "delegated") == 0, "nor the gateway's router")
    }

    @Test("browsers' requests are forwarded with CORS headers, missing tokens refused, and only the gateway's own routes go to the router")
    func delegatedRequests() async throws {
        let metrics = TestMetrics()
        try await withGateway(metrics: metrics) { gateway in
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [.origin: Self.webOrigin]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == Self.webOrigin)
            }
            try await gateway.execute(uri: "/api/private/echo", method: .get) { response in
                #expect(response.status == .unauthorized)
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error.code == "unauthenticated")
            }
            try await gateway.execute(uri: "/openapi.json", method: .get) { response in #expect(response.status == .ok) }
            try await gateway.execute(uri: "/api/meals/echo", method: .get) { response in
                #expect(response.status == .ok)
                // Web origins are configured: answers vary by Origin whichever path made them.
                #expect(response.headers[.vary] == "Origin")
            }
        }
        #expect(passThroughCount(metrics, "delegated") == 1, "the API document")
        #expect(passThroughCount(metrics, "forwarded") == 2)
        #expect(passThroughCount(metrics, "refused") == 1)
    }

    @Test("pipelined requests are answered in the order sent: forwarded, waited for, refused or the router's own")
    func pipelinedRequestsKeepTheirOrder() async throws {
        let token = try await tokens.token()
        try await withGateway { gateway in
            let requests =
                "GET /api/private/echo?order=1 HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer \(token)\r\n\r\n"
                + "GET /api/meals/echo?order=2 HTTP/1.1\r\nHost: gateway\r\n\r\n"
                + "GET /api/private/echo?order=3 HTTP/1.1\r\nHost: gateway\r\n\r\n"
                + "GET /openapi.json HTTP/1.1\r\nHost: gateway\r\n\r\n"
                + "GET /api/meals/echo?order=5 HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n"
            let answers = try await RawHTTPConnection.send(requests, port: try #require(gateway.port))
            // Bodies need not end in a line break, so a status line can follow one directly.
            let statusLines = answers.matches(of: /HTTP\/1\.1 \d{3}/).map { String(answers[$0.range]) }
            #expect(statusLines == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 401", "HTTP/1.1 200", "HTTP/1.1 200"])
            let positions = try ["order=1", "order=2", "\"openapi\"", "order=5"].map { marker in
                try #require(answers.range(of: marker), "\(marker) answered").lowerBound
            }
            #expect(positions == positions.sorted())
        }
    }

    @Test("a body larger than every buffer on the way reaches an upstream that reads it slowly whole and in order, at its pace")
    func largeBodyAtTheUpstreamsPace() async throws {
        let metrics = TestMetrics()
        // 24 MB: more than loopback's socket buffers hold, so the gateway's reads from the client are held and released.
        var pages = [UInt8](repeating: 0, count: 24 << 20)
        for page in stride(from: 0, to: pages.count, by: 4096) { pages[page] = UInt8(truncatingIfNeeded: page >> 12 &* 7 &+ 1) }
        let body = pages
        var sample = UploadSample()
        sample.add(body)
        let expected = sample
        try await withGateway(metrics: metrics) { gateway in
            try await gateway.execute(
                uri: "/api/uploads/slow-sink", method: .post, headers: [.contentType: "application/octet-stream"],
                body: ByteBuffer(bytes: body)
            ) { response in
                #expect(response.status == .ok)
                let seen = try JSONDecoder().decode([String: Int].self, from: Data(buffer: response.body))
                #expect(seen == ["bytes": body.count, "sum": expected.sum])
            }
            try await gateway.execute(uri: "/api/meals/echo", method: .get) { response in #expect(response.status == .ok) }
        }
        #expect(passThroughCount(metrics, "forwarded") == 2, "both went through the pass-through")
        #expect(
            metrics.counterTotal(label: "gateway_pass_through_body_holds_total") > 0,
            "reading from the client waited for the upstream instead of buffering the body")
    }

    @Test("the upstream timeout waits for a slow upload: it counts from the request's last byte, and cuts off a client that stops sending")
    func slowUpload() async throws {
        try await echoUpstream().test(.live) { upstream in
            var settings = try settings(upstreamPort: try #require(upstream.port))
            settings.upstreamTimeout = .milliseconds(400)
            try await tokens.withGateway(settings: settings) { gateway in
                let port = try #require(gateway.port)
                let head = "POST /api/meals/echo HTTP/1.1\r\nHost: gateway\r\nContent-Length: 50\r\nConnection: close\r\n\r\n"
                let parts = (0..<5).map { String(repeating: Character(String($0)), count: 10) }
                // Five parts 200 ms apart: a whole second of upload, more than twice the timeout.
                let slow = try await RawHTTPConnection.send([head] + parts, pausing: .milliseconds(200), port: port)
                #expect(slow.hasPrefix("HTTP/1.1 200"), "\(slow)")
                #expect(slow.hasSuffix(parts.joined()))
                let stalled = try await RawHTTPConnection.send(
                    [head + parts[0], parts[1]], pausing: .milliseconds(900), port: port)
                #expect(stalled.hasPrefix("HTTP/1.1 504"), "a client silent for longer than the timeout is cut off: \(stalled)")
            }
        }
    }

    @Test("a client that resets its connection before any answer is counted as a 499 error, and its request is no longer in progress")
    func clientHangsUp() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let metrics = TestMetrics()
        var settings = try settings(upstreamPort: try #require(silent.localAddress?.port))
        settings.upstreamTimeout = .seconds(5)
        try await tokens.withGateway(settings: settings, metrics: metrics, verifier: nil) { gateway in
            let port = try #require(gateway.port)
            let inProgress = { (try? metrics.expectMeter("http.server.active_requests", [("http.request.method", "GET")]))?.values.last == 1 }
            let answer = try await RawHTTPConnection.sendAndHangUp(
                "GET /api/meals/anything HTTP/1.1\r\nHost: gateway\r\n\r\n", once: inProgress, port: port)
            #expect(answer.isEmpty, "nothing was answered: \(answer)")
            let closed = [("http.route", "/api/meals"), ("http.response.status_code", "499")]
            let deadline = ContinuousClock.now + .seconds(10)
            while metrics.counterTotal(label: "hb.requests.total", dimensions: closed) == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(metrics.counterTotal(label: "hb.requests.total", dimensions: closed) == 1)
            #expect(metrics.counterTotal(label: "hb.request.errors.total", dimensions: [("http.route", "/api/meals"), ("error.type", "499")]) == 1)
            let active = try metrics.expectMeter("http.server.active_requests", [("http.request.method", "GET")])
            #expect(active.values.last == 0, "the request is no longer in progress")
        }
        try await silent.close()
    }

    @Test("an upstream that does not answer in time is a 504 upstream_timeout, and the next request is served")
    func upstreamTimeout() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        var settings = try settings(upstreamPort: try #require(silent.localAddress?.port))
        settings.upstreamTimeout = .milliseconds(300)
        try await tokens.withGateway(settings: settings) { gateway in
            try await gateway.execute(uri: "/api/meals/anything", method: .get) { response in
                #expect(response.status == .gatewayTimeout)
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error.code == "upstream_timeout")
                #expect(body.error.requestId == response.headers[.requestId])
            }
            try await gateway.execute(uri: "/openapi.json", method: .get) { response in #expect(response.status == .ok) }
        }
        try await silent.close()
    }
}
