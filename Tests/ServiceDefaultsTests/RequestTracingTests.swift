import Foundation
import Hummingbird
import HummingbirdTesting
import InMemoryTracing
import ServiceDefaults
import Testing
import Tracing

@Suite("Request spans and the tracing switch")
struct RequestTracingTests {
    func makeApp() -> some ApplicationProtocol {
        let router = ServiceRuntime.makeRouter(service: "demo", checks: [])
        router.get("/links/:token") { _, _ -> String in
            // Work inside the request runs in its span: a span made here is the request span's child.
            withSpan("lookup") { _ in "found" }
        }
        router.get("/boom") { _, _ -> String in throw LeakyError() }
        return Application(router: router)
    }

    /// Every attribute value as text.
    func values(of attributes: SpanAttributes) -> [String] {
        var values: [String] = []
        attributes.forEach { _, value in values.append("\(value)") }
        return values
    }

    @Test("tracing is off unless an OTLP endpoint is set, and OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none switch it off")
    func tracingSwitch() throws {
        #expect(!TracingBootstrap.isRequested(environment: [:]))
        #expect(!TracingBootstrap.isRequested(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": " "]))
        #expect(TracingBootstrap.isRequested(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]))
        #expect(TracingBootstrap.isRequested(environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"]))
        #expect(!TracingBootstrap.isRequested(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"]))
        #expect(!TracingBootstrap.isRequested(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_TRACES_EXPORTER": "none"]))
        // Off: nothing is bootstrapped and there is no exporter to run.
        #expect(try TracingBootstrap.bootstrap(service: "demo", environment: [:], logger: .init(label: "test")) == nil)
    }

    @Test("only a well-formed W3C traceparent is continued; anything else starts a new trace")
    func traceparentShape() {
        let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(TraceContext.isWellFormed(valid))
        #expect(TraceContext.isWellFormed("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later"))
        #expect(!TraceContext.isWellFormed(valid.uppercased()))
        #expect(!TraceContext.isWellFormed("\(valid), \(valid)"))
        #expect(!TraceContext.isWellFormed("00-00000000000000000000000000000000-00f067aa0ba902b7-01"))
        #expect(!TraceContext.isWellFormed("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"))
        #expect(!TraceContext.isWellFormed(String(valid.dropLast())))
        #expect(!TraceContext.isWellFormed("00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01"))
    }

    @Test("a request is a server span named by its route, with the share token redacted from its path and the work it does as children")
    func requestSpan() async throws {
        let tracer = InMemoryTracer()
        let token = CapabilityToken.generate()
        try await withTracer(tracer) {
            try await makeApp().test(.router) { client in
                let response = try await client.execute(uri: "/links/\(token)?secret=1", method: .get, headers: [.requestId: "req-1"])
                #expect(response.status == .ok)
            }
        }
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.kind == .server })
        #expect(request.operationName == "GET /links/{token}")
        #expect(request.attributes.get("url.path") == .string("/links/:token"))
        #expect(request.attributes.get("http.route") == .string("/links/{token}"))
        #expect(request.attributes.get("http.response.status_code") == .int64(200))
        #expect(request.attributes.get("request_id") == .string("req-1"))
        #expect(!spans.flatMap { values(of: $0.attributes) }.contains { $0.contains(token) || $0.contains("secret") })
        let lookup = try #require(spans.first { $0.operationName == "lookup" })
        #expect(lookup.parentSpanID == request.spanID && lookup.traceID == request.traceID)
    }

    @Test("health probes make no spans")
    func probesAreNotTraced() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await makeApp().test(.router) { client in
                for uri in ["/health/live", "/health/ready"] {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .ok, "\(uri) answered \(response.status)")
                }
                let response = try await client.execute(uri: "/links/\(CapabilityToken.generate())", method: .get)
                #expect(response.status == .ok)
            }
        }
        #expect(tracer.finishedSpans.filter { $0.kind == .server }.map(\.operationName) == ["GET /links/{token}"])
    }

    @Test("a failed request's span is marked as an error without the error's text")
    func failedRequest() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await makeApp().test(.router) { client in
                let response = try await client.execute(uri: "/boom", method: .get)
                #expect(response.status == .internalServerError)
            }
        }
        let request = try #require(tracer.finishedSpans.first { $0.kind == .server })
        #expect(request.status?.code == .error)
        #expect(request.attributes.get("http.response.status_code") == .int64(500))
        #expect(!values(of: request.attributes).contains { $0.contains("password_hash") })
    }
}
