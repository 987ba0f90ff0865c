import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import Synchronization
import Testing

@testable import Gateway

/// The gateway's own span path: its settings from the OpenTelemetry variables, its sampler, and its batches
/// (`SpanExportSettings`, `SpanSampler`, `SpanExport`).
@Suite struct SpanExportTests {
    static func span(_ number: UInt64) -> RecordedSpan {
        RecordedSpan(
            traceId: TraceID(high: 1, low: number), spanId: SpanID(value: number), parentSpanId: nil, traceState: nil, name: "GET /api/x",
            kind: .server, startNanos: 1, endNanos: 2, attributes: [], isError: false)
    }

    // MARK: - Settings

    @Test("no endpoint, or the SDK or the traces exporter turned off, is no span export")
    func notAsked() throws {
        #expect(try SpanExportSettings(environment: [:]) == nil)
        #expect(try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"]) == nil)
        #expect(try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"]) == nil)
    }

    @Test("the endpoint: the base one with /v1/traces, the traces one as it is; protobuf by default, JSON on request; anything else refused")
    func endpointAndProtocol() throws {
        let base = try #require(try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"]))
        #expect(base.endpoint.absoluteString == "http://collector:4318/v1/traces" && base.encoding == .protobuf)
        let traces = try #require(
            try SpanExportSettings(environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example/custom",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            ]))
        #expect(traces.endpoint.absoluteString == "https://traces.example/custom" && traces.encoding == .json)
        #expect(throws: (any Error).self) {
            try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
        }
        #expect(throws: (any Error).self) { try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"]) }
    }

    @Test("headers and resource attributes are key=value pairs, percent-decoded; OTEL_SERVICE_NAME wins over a service.name among them")
    func headersAndResource() throws {
        let settings = try #require(
            try SpanExportSettings(environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x-tenant=t1",
                "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-attributes,deployment.environment=prod",
            ]))
        #expect(settings.headers.map { "\($0.name)=\($0.value)" } == ["api-key=a b", "x-tenant=t1"])
        #expect(settings.resource == [SpanAttribute("service.name", "from-attributes"), SpanAttribute("deployment.environment", "prod")])
        let named = try #require(
            try SpanExportSettings(environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SERVICE_NAME": "gateway-eu", "OTEL_RESOURCE_ATTRIBUTES": "service.name=x",
            ]))
        #expect(named.resource == [SpanAttribute("service.name", "gateway-eu")])
        #expect(throws: (any Error).self) {
            try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"])
        }
    }

    @Test("the batch settings and the export timeout are milliseconds and counts; a batch is never larger than the queue; nonsense is refused")
    func batchSettings() throws {
        let settings = try #require(
            try SpanExportSettings(environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_BSP_SCHEDULE_DELAY": "250", "OTEL_BSP_MAX_QUEUE_SIZE": "100",
                "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "512", "OTEL_EXPORTER_OTLP_TIMEOUT": "2000", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
            ]))
        #expect(settings.scheduleDelay == .milliseconds(250) && settings.exportTimeout == .seconds(2))
        #expect(settings.maxQueueSize == 100 && settings.maxExportBatchSize == 100)
        #expect(settings.compressionIgnored, "gzip is not applied to the pass-through's spans, and that is said")
        #expect(throws: (any Error).self) {
            try SpanExportSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_BSP_SCHEDULE_DELAY": "-1"])
        }
    }

    // MARK: - Sampler

    @Test("samplers by name: parentbased_always_on by default, the others as the specification names them, a bad ratio refused")
    func samplerNames() throws {
        #expect(try SpanSampler(name: nil, argument: nil) == .parentBased(root: .always))
        #expect(try SpanSampler(name: "always_off", argument: nil) == .never)
        #expect(try SpanSampler(name: "traceidratio", argument: "0.25") == .ratio(0.25))
        #expect(try SpanSampler(name: "parentbased_traceidratio", argument: nil) == .parentBased(root: .ratio(1)))
        #expect(throws: (any Error).self) { try SpanSampler(name: "traceidratio", argument: "2") }
        #expect(throws: (any Error).self) { try SpanSampler(name: "jaeger_remote", argument: nil) }
    }

    @Test(
        "a parent-based sampler follows the caller's sampled flag; a ratio keeps about its share of traces, the same decision for a trace each time")
    func samplerDecisions() {
        let trace = TraceID(high: 7, low: 7)
        let sampledParent = TraceParent(traceId: trace, parentId: SpanID(value: 1), flags: 1)
        let unsampledParent = TraceParent(traceId: trace, parentId: SpanID(value: 1), flags: 0)
        #expect(SpanSampler.parentBased(root: .never).samples(trace, parent: sampledParent))
        #expect(!SpanSampler.parentBased(root: .always).samples(trace, parent: unsampledParent))
        #expect(SpanSampler.parentBased(root: .always).samples(trace, parent: nil))
        #expect(SpanSampler.always.samples(trace, parent: nil) && !SpanSampler.never.samples(trace, parent: sampledParent))
        var ids = TraceIdentifierGenerator(seed: (9, 8, 7, 6))
        let traces = (0..<20_000).map { _ in ids.traceId() }
        let kept = traces.filter { SpanSampler.ratio(0.25).samples($0, parent: nil) }.count
        #expect((4_500...5_500).contains(kept), "\(kept) of 20,000 kept at 0.25")
        #expect(traces.allSatisfy { SpanSampler.ratio(0.25).samples($0, parent: nil) == SpanSampler.ratio(0.25).samples($0, parent: nil) })
        #expect(traces.filter { SpanSampler.ratio(0).samples($0, parent: nil) }.isEmpty)
        #expect(traces.allSatisfy { SpanSampler.ratio(1).samples($0, parent: nil) })
    }

    // MARK: - Batches

    @Test(
        "spans go out in batches of the batch size; past the queue's size they are dropped and counted; a failed send drops and counts its batch, said once for several"
    )
    func batches() async throws {
        let metrics = TestMetrics()
        let warnings = WarningCount()
        let sent = Mutex<[[UInt64]]>([])
        let fails = Mutex(false)
        let export = SpanExport(
            settings: SpanExportSettings(endpoint: URL(string: "http://c:4318/v1/traces")!, maxQueueSize: 5, maxExportBatchSize: 2),
            send: { batch in
                if fails.withLock({ $0 }) { throw OTLPExportRefused(status: 503) }
                sent.withLock { $0.append(batch.map(\.spanId.value)) }
            }, metrics: metrics, logger: Logger(label: "span-export-test") { _ in CountingLogHandler(count: warnings) })
        for number in 1...7 { export.record(Self.span(UInt64(number))) }
        await export.exportWaiting()
        #expect(sent.withLock { $0 } == [[1, 2], [3, 4], [5]])
        #expect(metrics.counterTotal(label: "gateway_spans_dropped_total") == 2)
        fails.withLock { $0 = true }
        for number in 8...10 { export.record(Self.span(UInt64(number))) }
        await export.exportWaiting()
        #expect(metrics.counterTotal(label: "gateway_spans_dropped_total") == 5)
        #expect(sent.withLock { $0 }.count == 3)
        #expect(warnings.value.withLock { $0 } == 1, "two failed batches in a row are one warning")
    }

    @Test("a full batch is sent at once, without waiting for the schedule delay; what waits is sent when the service stops")
    func fullBatchAndShutdownFlush() async throws {
        let sent = Mutex<[Int]>([])
        let export = SpanExport(
            settings: SpanExportSettings(endpoint: URL(string: "http://c:4318/v1/traces")!, scheduleDelay: .seconds(3600), maxExportBatchSize: 3),
            send: { batch in sent.withLock { $0.append(batch.count) } }, logger: Logger(label: "span-export-test"))
        let group = ServiceGroup(services: [export], logger: Logger(label: "span-export-test"))
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            for number in 1...3 { export.record(Self.span(UInt64(number))) }
            let deadline = ContinuousClock.now + .seconds(10)
            while sent.withLock({ $0 }).isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(sent.withLock { $0 } == [3], "the full batch went out long before the hour's delay")
            export.record(Self.span(4))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(sent.withLock { $0 } == [3, 1], "the last span went out at shutdown")
    }
}

/// How many warnings were logged.
private final class WarningCount: Sendable {
    let value = Mutex(0)
}

/// Counts the warnings logged through it.
private struct CountingLogHandler: LogHandler {
    let count: WarningCount
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level == .warning { count.value.withLock { $0 += 1 } }
    }
}
