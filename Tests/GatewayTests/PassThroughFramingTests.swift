import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MetricsTestKit
import NIOCore
import Synchronization
import Testing

@testable import Gateway

/// What used to need a second forwarder: chunked bodies, `Expect: 100-continue`, streamed answers (Server-Sent Events)
/// and tracing, all through the pass-through.
extension UpstreamProxyTests {
    @Test("a chunked body reaches the upstream; one that grows past the route's limit is a 413 and the connection closes")
    func chunkedBodies() async throws {
        try await withGateway { gateway in
            let port = try #require(gateway.port)
            let small = try await RawHTTPConnection.send(
                "POST /api/meals/echo HTTP/1.1\r\nHost: gateway\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                port: port)
            #expect(small.hasPrefix("HTTP/1.1 200"), "\(small)")
            #expect(small.hasSuffix("hello world"))

            // The route takes 64 bytes; 100 arrive, with no length declared. The answer is sent without waiting for
            // the rest and the connection is closed (RawHTTPConnection returns only once it is).
            let chunk = String(repeating: "a", count: 50)
            let large = try await RawHTTPConnection.send(
                "POST /api/meals/echo HTTP/1.1\r\nHost: gateway\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "32\r\n\(chunk)\r\n32\r\n\(chunk)\r\n",
                port: port)
            #expect(large.hasPrefix("HTTP/1.1 413"), "\(large)")
            #expect(large.contains(#""code":"payload_too_large""#))
        }
    }

    @Test("Expect: 100-continue gets its go-ahead and the body goes up; another expectation is a 417; a refusal does not wait for the body")
    func expectations() async throws {
        try await withGateway { gateway in
            let port = try #require(gateway.port)
            let continued = try await RawHTTPConnection.send(
                "POST /api/meals/echo HTTP/1.1\r\nHost: gateway\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                port: port)
            #expect(continued.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"), "\(continued)")
            #expect(continued.hasSuffix("{}"))

            let other = try await RawHTTPConnection.send(
                "POST /api/meals/echo HTTP/1.1\r\nHost: gateway\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n", port: port)
            #expect(other.hasPrefix("HTTP/1.1 417"), "\(other)")
            #expect(other.contains(#""code":"expectation_failed""#))

            // A private route without a token: refused before the body is asked for, and the connection closed, so
            // the client is not left waiting to send it.
            let refused = try await RawHTTPConnection.send(
                "POST /api/private/echo HTTP/1.1\r\nHost: gateway\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", port: port)
            #expect(refused.hasPrefix("HTTP/1.1 401"), "\(refused)")
            #expect(!refused.contains("100 Continue"))
        }
    }

    @Test("a refused request's declared body is read whole, past 1 MiB: its client reads the refusal and the connection serves the next")
    func refusedLargeBody() async throws {
        try await withGateway { gateway in
            let port = try #require(gateway.port)
            let body = String(repeating: "x", count: 3 << 20)
            let answers = try await RawHTTPConnection.send(
                "POST /api/private-uploads/photo HTTP/1.1\r\nHost: gateway\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    + "GET /api/meals/echo HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n",
                port: port)
            #expect(answers.hasPrefix("HTTP/1.1 401"), "\(answers.prefix(300))")
            #expect(answers.contains(#""code":"unauthenticated""#))
            #expect(answers.contains("HTTP/1.1 200"), "the next request on the connection is answered: \(answers.prefix(600))")
        }
    }

    @Test("Server-Sent Events are passed on as they come, past the upstream timeout, and counted while open")
    func streamingTests() async throws {
        let metrics = TestMetrics()
        try await echoUpstream().test(.live) { upstream in
            var settings = try settings(upstreamPort: try #require(upstream.port))
            settings.upstreamTimeout = .milliseconds(300)
            try await tokens.withGateway(settings: settings, metrics: metrics, verifier: nil) { gateway in
                try await gateway.execute(uri: "/api/meals/stream", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/event-stream")
                    #expect(String(buffer: response.body) == "data: one\n\ndata: two\n\n")
                }
                // An ordinary answer still has the timeout.
                try await gateway.execute(uri: "/api/meals/echo", method: .get) { response in #expect(response.status == .ok) }
            }
        }
        let openStreams = try metrics.expectMeter("gateway_open_streams")
        #expect(openStreams.values == [1, 0])
    }

    @Test("at shutdown an open stream of events ends at once, cleanly, with its last chunk after a whole one")
    func streamEndsAtShutdown() async throws {
        let metrics = TestMetrics()
        let stream = Mutex<Task<String, any Error>?>(nil)
        try await echoUpstream().test(.live) { upstream in
            let settings = try settings(upstreamPort: try #require(upstream.port))
            try await tokens.withGateway(settings: settings, metrics: metrics, verifier: nil) { gateway in
                let port = try #require(gateway.port)
                stream.withLock {
                    $0 = Task { try await RawHTTPConnection.send("GET /api/meals/endless-stream HTTP/1.1\r\nHost: gateway\r\n\r\n", port: port) }
                }
                // The gateway's shutdown begins when this returns, once the stream is open.
                let deadline = ContinuousClock.now + .seconds(5)
                while try metrics.openStreams() != 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try metrics.openStreams() == 1)
            }
        }
        let received = try #require(try await stream.withLock { $0 }?.value)
        #expect(received.hasPrefix("HTTP/1.1 200"), "\(received.prefix(300))")
        #expect(received.contains("Transfer-Encoding: chunked\r\n"))
        #expect(received.contains("b\r\ndata: one\n\n\r\n"), "the event in a chunk of its own")
        #expect(received.hasSuffix("\r\n0\r\n\r\n"), "the last chunk after a whole one: \(received.suffix(40))")
        #expect(try metrics.openStreams() == 0)
    }

    @Test("an HTTP/1.0 client gets a chunked answer's data without chunks, and its connection closes after it unless it asked to keep it")
    func http10Clients() async throws {
        try await withGateway { gateway in
            let port = try #require(gateway.port)
            let stream = try await RawHTTPConnection.send("GET /api/meals/stream HTTP/1.0\r\nHost: gateway\r\n\r\n", port: port)
            #expect(stream.hasPrefix("HTTP/1.1 200"), "\(stream.prefix(300))")
            #expect(!stream.lowercased().contains("transfer-encoding"))
            #expect(stream.contains("Connection: close\r\n"))
            #expect(stream.hasSuffix("\r\n\r\ndata: one\n\ndata: two\n\n"), "the data as it came, ended by the close: \(stream.suffix(60))")

            // Two requests on one connection: the first asks to keep it, the second does not.
            let request = "GET /api/meals/echo HTTP/1.0\r\nHost: gateway\r\n"
            let kept = try await RawHTTPConnection.send(request + "Connection: keep-alive\r\n\r\n" + request + "\r\n", port: port)
            let answers = kept.components(separatedBy: "HTTP/1.1 200 OK\r\n").dropFirst()
            #expect(answers.count == 2, "\(kept)")
            #expect(answers.first?.contains("Connection: keep-alive\r\n") == true)
            #expect(answers.last?.contains("Connection: close\r\n") == true)
        }
    }

    @Test(
        "tracing: a server span per request continuing the client's traceparent, and a client span per upstream call whose traceparent the upstream gets"
    )
    func tracedForwarding() async throws {
        let recorded = Mutex<[RecordedSpan]>([])
        let export = SpanExport(
            settings: SpanExportSettings(endpoint: URL(string: "http://127.0.0.1:9/v1/traces")!),
            send: { batch in recorded.withLock { $0 += batch } },
            logger: Logger(label: "span-export-test"))
        let token = try await tokens.token()
        let seenTraceparents = Mutex<[String]>([])
        let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
        try await withGateway(tracing: PassThroughTracing(export: export)) { gateway in
            for _ in 1...2 {
                try await gateway.execute(
                    uri: "/api/private/echo?x=1", method: .get,
                    headers: [.authorization: "Bearer \(token)", HTTPField.Name("traceparent")!: "00-\(clientTrace)-00f067aa0ba902b7-01"]
                ) { response in
                    #expect(response.status == .ok)
                    let seen = try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
                    seenTraceparents.withLock { $0.append(seen["traceparent"] ?? "none") }
                }
            }
            try await gateway.execute(uri: "/api/private/echo", method: .get) { response in #expect(response.status == .unauthorized) }
        }
        await export.exportWaiting()
        let spans = recorded.withLock { $0 }
        let servers = spans.filter { $0.kind == .server }
        let clients = spans.filter { $0.kind == .client }
        #expect(servers.map(\.name) == ["GET /api/private", "GET /api/private", "GET /api/private"])
        #expect(clients.map(\.name) == ["GET meals", "GET meals"])
        #expect(
            seenTraceparents.withLock { $0 } == clients.map { "00-\(clientTrace)-\($0.spanId.hex)-01" },
            "the upstream received its client span's traceparent, in the client's trace")
        for client in clients {
            let server = try #require(servers.first { $0.spanId == client.parentSpanId }, "each client span is under a server span")
            #expect(server.traceId.hex == clientTrace && client.traceId == server.traceId)
            #expect(server.parentSpanId?.hex == "00f067aa0ba902b7", "the server span continues the client's")
            #expect(server.attributes.contains(SpanAttribute("http.response.status_code", 200)))
            #expect(server.attributes.contains(SpanAttribute("url.path", "/api/private/echo")), "no query string")
            #expect(server.startNanos <= client.startNanos && client.endNanos <= server.endNanos)
        }
        #expect(servers.last?.attributes.contains(SpanAttribute("http.response.status_code", 401)) == true)
        #expect(servers.last?.parentSpanId == nil, "a request without traceparent starts a trace")
    }

    @Test("an unsampled caller's request makes no span, and its traceparent goes up as it came")
    func unsampledCaller() async throws {
        let recorded = Mutex<[RecordedSpan]>([])
        let export = SpanExport(
            settings: SpanExportSettings(endpoint: URL(string: "http://127.0.0.1:9/v1/traces")!),
            send: { batch in recorded.withLock { $0 += batch } },
            logger: Logger(label: "span-export-test"))
        let unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
        try await withGateway(tracing: PassThroughTracing(export: export)) { gateway in
            try await gateway.execute(uri: "/api/meals/echo", method: .get, headers: [HTTPField.Name("traceparent")!: unsampled]) { response in
                let seen = try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
                #expect(seen["traceparent"] == unsampled)
            }
        }
        await export.exportWaiting()
        #expect(recorded.withLock { $0 }.isEmpty)
    }
}

extension TestMetrics {
    /// The gateway's gauge of open streams of events (0 before any was counted).
    fileprivate func openStreams() throws -> Double {
        meters.contains { $0.label == "gateway_open_streams" } ? try expectMeter("gateway_open_streams").lastValue ?? 0 : 0
    }
}
