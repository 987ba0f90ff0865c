import AsyncHTTPClient
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// The gateway's own span path, off the request path: the pass-through records each finished span here (one lock
/// and an append, on the event loop: no task, no stream per span, unlike swift-otel's processor, whose per-span
/// task hops cost the traced gateway two thirds of its throughput), and one task sends them in batches of
/// `maxExportBatchSize` when that many wait or every `scheduleDelay`, as OpenTelemetry's batch span processor does.
/// Past `maxQueueSize` waiting spans new ones are dropped and counted (`gateway_spans_dropped_total`) rather than
/// held: tracing must not cost the gateway its memory. The process's other spans (the router's) stay with swift-otel,
/// configured by the same variables (`SpanExportSettings`).
final class SpanExport: Service, Sendable {
    /// Sends one batch; throws when it could not be delivered (the batch is then dropped and counted).
    typealias Send = @Sendable ([RecordedSpan]) async throws -> Void

    let settings: SpanExportSettings
    private let waiting: NIOLockedValueBox<[RecordedSpan]>
    private let batchReady: AsyncStream<Void>.Continuation
    private let batches: AsyncStream<Void>
    private let send: Send
    private let dropped: Counter
    private let logger: Logger
    /// Spans a failed send dropped since the last warning, and when that was: an unreachable collector is said at
    /// most once per `warningInterval`, not once per batch.
    private let unsent = NIOLockedValueBox((count: 0, lastWarning: ContinuousClock.Instant?.none))
    static let warningInterval = Duration.seconds(10)

    init(settings: SpanExportSettings, send: @escaping Send, metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger) {
        self.settings = settings
        self.send = send
        self.waiting = NIOLockedValueBox([])
        (batches, batchReady) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.dropped = Counter(label: "gateway_spans_dropped_total", factory: metrics)
        self.logger = logger
    }

    /// An export that POSTs OTLP/HTTP to the settings' endpoint with `client`.
    convenience init(settings: SpanExportSettings, client: HTTPClient, metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger) {
        self.init(settings: settings, send: OTLPHTTPSender(settings: settings, client: client).send, metrics: metrics, logger: logger)
    }

    /// Keeps `span` for the next batch (or drops it when the queue is full).
    func record(_ span: RecordedSpan) {
        let (kept, full) = waiting.withLockedValue { waiting -> (Bool, Bool) in
            guard waiting.count < settings.maxQueueSize else { return (false, false) }
            waiting.append(span)
            return (true, waiting.count == settings.maxExportBatchSize)
        }
        if !kept { dropped.increment() }
        if full { batchReady.yield() }
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                // Wakes the loop at each schedule delay; a full batch wakes it sooner.
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.settings.scheduleDelay)
                    self.batchReady.yield()
                }
            }
            for await _ in batches.cancelOnGracefulShutdown() {
                await exportWaiting()
            }
            group.cancelAll()
        }
        // What is left when the process stops goes out before it does.
        await exportWaiting()
    }

    /// Sends every waiting span, a batch at a time.
    func exportWaiting() async {
        while true {
            let batch = waiting.withLockedValue { waiting -> [RecordedSpan] in
                let batch = Array(waiting.prefix(settings.maxExportBatchSize))
                waiting.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await send(batch)
            } catch {
                dropped.increment(by: batch.count)
                let now = ContinuousClock.now
                let warning = unsent.withLockedValue { unsent -> Int? in
                    unsent.count += batch.count
                    if let last = unsent.lastWarning, last.duration(to: now) < Self.warningInterval { return nil }
                    defer { unsent = (0, now) }
                    return unsent.count
                }
                if let warning {
                    logger.warning(
                        "could not export spans; dropped them (said at most every 10 s)", metadata: ["spans": "\(warning)", "error": "\(error)"])
                }
            }
        }
    }
}

/// OTLP/HTTP: one POST of an `ExportTraceServiceRequest` per batch, a 2xx answer being success.
struct OTLPHTTPSender: Sendable {
    let settings: SpanExportSettings
    let client: HTTPClient

    func send(_ spans: [RecordedSpan]) async throws {
        let body =
            switch settings.encoding {
            case .protobuf: OTLPTraceEncoding.protobuf(spans, resource: settings.resource, scope: SpanExport.scope)
            case .json: OTLPTraceEncoding.json(spans, resource: settings.resource, scope: SpanExport.scope)
            }
        var request = HTTPClientRequest(url: settings.endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: settings.encoding.contentType)
        for header in settings.headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .init(settings.exportTimeout))
        _ = try? await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status.code) else { throw OTLPExportRefused(status: Int(response.status.code)) }
    }
}

extension SpanExport {
    /// The instrumentation scope of the gateway's spans.
    static let scope = "nutritionai.gateway.pass-through"
}

/// The collector answered an export with a status that is not success.
struct OTLPExportRefused: Error, CustomStringConvertible {
    let status: Int
    var description: String { "the OTLP endpoint answered \(status)" }
}
