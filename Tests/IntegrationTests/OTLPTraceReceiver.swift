import Foundation
import Hummingbird
import HummingbirdTesting
import OTel
import ServiceDefaults
import Synchronization
import Tracing

/// A small OTLP/HTTP receiver (`POST /v1/traces`, JSON encoding) on a loopback port, and a swift-otel tracer that
/// exports to it. The tracer is bound to the task that runs `body` (`withTracer`), not bootstrapped for the process:
/// the services a test starts inside `body` trace into this receiver, while every other test in the process keeps
/// the no-op tracer, and no process-wide bootstrap (possible only once) is spent.
final class OTLPTraceReceiver: Sendable {
    /// Every tracer made here, kept for the life of the process. AsyncHTTPClient configurations made inside `body`
    /// hold the tracer, and a client's connection pool can outlive the test; were that the last reference, the
    /// tracer would be freed on an event loop, where swift-otel's exporter `deinit` calls `syncShutdown()` and traps
    /// (seen in a full test run). Its exporter is shut down properly when `run` ends; only the object stays.
    private static let tracers = Mutex<[any Tracer]>([])

    /// The receiver's endpoint while `run`'s body runs: the gateways a test starts there send their pass-through spans
    /// to it on the gateway's own span path (`SpanExport`), as the services' spans come through the bound tracer.
    @TaskLocal static var endpoint: URL?

    private let received = Mutex<[ReceivedSpan]>([])
    private let malformedExports = Mutex(0)

    /// Every span received so far in trace `traceId`.
    func spans(inTrace traceId: String) -> [ReceivedSpan] {
        received.withLock { spans in spans.filter { $0.traceId == traceId } }
    }

    /// How many export requests could not be read (each should be a test failure).
    var malformedExportCount: Int { malformedExports.withLock { $0 } }

    /// Starts the receiver and the tracer, runs `body` with the tracer bound to its task, then flushes and stops both.
    static func run(_ body: @Sendable (OTLPTraceReceiver) async throws -> Void) async throws {
        let receiver = OTLPTraceReceiver()
        let router = Router()
        router.post("/v1/traces") { request, _ -> HTTPResponse.Status in
            receiver.record(try await request.body.collect(upTo: 32 << 20))
            return .noContent
        }
        try await Application(router: router, logger: TestEnvironment.logger).test(.live) { client in
            var configuration = TracingBootstrap.configuration(service: "itest", logger: TestEnvironment.logger)
            configuration.traces.otlpExporter.endpoint = "http://127.0.0.1:\(client.port!)/v1/traces"
            configuration.traces.otlpExporter.protocol = .httpJSON
            configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(100)
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            tracers.withLock { $0.append(backend.factory) }
            try await withRunning([backend.service]) {
                try await withTracer(backend.factory) {
                    try await $endpoint.withValue(URL(string: "http://127.0.0.1:\(client.port!)/v1/traces")!) { try await body(receiver) }
                }
            }
        }
    }

    private func record(_ body: ByteBuffer) {
        guard let request = try? JSONDecoder().decode(ExportRequest.self, from: Data(buffer: body)) else {
            malformedExports.withLock { $0 += 1 }
            return
        }
        let spans = (request.resourceSpans ?? []).flatMap { $0.scopeSpans ?? [] }.flatMap { $0.spans ?? [] }
        let converted = spans.map { span in
            ReceivedSpan(
                traceId: Self.hex(span.traceId), spanId: Self.hex(span.spanId), parentSpanId: Self.hex(span.parentSpanId ?? ""),
                name: span.name, kind: ReceivedSpan.Kind(rawValue: span.kind ?? 0) ?? .unspecified,
                attributes: Dictionary((span.attributes ?? []).map { ($0.key, $0.value.text) }) { first, _ in first },
                statusCode: span.status?.code ?? 0)
        }
        received.withLock { $0 += converted }
    }

    /// OTLP/JSON ids: hex per the OTLP specification, or base64 as protobuf's generic JSON mapping writes bytes.
    static func hex(_ field: String) -> String {
        if field.isEmpty || field.allSatisfy(\.isHexDigit) && (field.count == 32 || field.count == 16) { return field.lowercased() }
        guard let bytes = Data(base64Encoded: field) else { return field }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    // The parts of an OTLP/JSON `ExportTraceServiceRequest` the tests read.
    private struct ExportRequest: Decodable { var resourceSpans: [ResourceSpans]? }
    private struct ResourceSpans: Decodable { var scopeSpans: [ScopeSpans]? }
    private struct ScopeSpans: Decodable { var spans: [WireSpan]? }
    private struct WireSpan: Decodable {
        var traceId: String
        var spanId: String
        var parentSpanId: String?
        var name: String
        var kind: Int?
        var attributes: [WireAttribute]?
        var status: WireStatus?
    }
    private struct WireStatus: Decodable { var code: Int? }
    private struct WireAttribute: Decodable {
        var key: String
        var value: WireValue
    }
    /// An `AnyValue`: 64-bit integers arrive as JSON strings, the other scalars as themselves.
    private struct WireValue: Decodable {
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let text = try container.decodeIfPresent(String.self, forKey: .stringValue) {
                self.text = text
            } else if let number = try? container.decodeIfPresent(String.self, forKey: .intValue) {
                self.text = number
            } else if let number = try container.decodeIfPresent(Int64.self, forKey: .intValue) {
                self.text = String(number)
            } else if let flag = try container.decodeIfPresent(Bool.self, forKey: .boolValue) {
                self.text = String(flag)
            } else if let number = try container.decodeIfPresent(Double.self, forKey: .doubleValue) {
                self.text = String(number)
            } else {
                self.text = ""
            }
        }

        enum Key: String, CodingKey { case stringValue, intValue, boolValue, doubleValue }
    }
}
