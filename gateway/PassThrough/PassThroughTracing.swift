import Foundation
import HTTPTypes
import NIOHTTP1
import ServiceDefaults

/// The spans of the requests the pass-through answers itself, made on the event loop without a task and recorded on
/// the gateway's own span path (`SpanExport`): a server span per request (continuing the client's W3C `traceparent`,
/// named by the route: `POST /api/meals`), and below it a client span for the upstream call (`POST meals`), whose
/// `traceparent` replaces the client's on the way up, so the service's span is its child. The router makes the spans
/// of the requests it answers (`RequestTracingMiddleware`, swift-otel). Paths are recorded as logs show them (share
/// tokens redacted), query strings not at all; health probes are not traced. Whether a trace is recorded is the
/// sampler's (`SpanSampler`); an unsampled request makes no span, and its upstream call carries the caller's
/// `traceparent` on.
struct PassThroughTracing: Sendable {
    let export: SpanExport

    /// A span begun and not yet ended.
    struct OpenSpan {
        let traceId: TraceID
        let spanId: SpanID
        let parentSpanId: SpanID?
        let traceState: String?
        let name: String
        let kind: RecordedSpan.Kind
        let startNanos: UInt64
        var attributes: [SpanAttribute]
    }

    /// The server span of `request`, whose route is `route` (nil when it matched none); nil for health probes and
    /// requests the sampler leaves out.
    func serverSpan(for request: HTTPRequest, route: String?, ids: inout TraceIdentifierGenerator) -> OpenSpan? {
        let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? "/"
        guard path != "/health", !path.hasPrefix("/health/") else { return nil }
        let parent = request.headerFields[Self.traceparent].flatMap(TraceParent.init(header:))
        let traceId = parent?.traceId ?? ids.traceId()
        guard export.settings.sampler.samples(traceId, parent: parent) else { return nil }
        let method = request.method.rawValue
        var attributes = [SpanAttribute("http.request.method", method), SpanAttribute("url.path", LoggedPath.redacting(path))]
        if let route { attributes.append(SpanAttribute("http.route", route)) }
        return OpenSpan(
            traceId: traceId, spanId: ids.spanId(), parentSpanId: parent?.parentId,
            traceState: parent == nil ? nil : request.headerFields[Self.tracestate], name: route.map { "\(method) \($0)" } ?? method,
            kind: .server, startNanos: Self.now(), attributes: attributes)
    }

    /// The client span of the upstream call of `request` under `parent`; its `traceparent` replaces the one of
    /// `request.head` (the caller's `tracestate` goes on as it came).
    func clientSpan(for request: inout PassThroughRequest, under parent: OpenSpan, ids: inout TraceIdentifierGenerator) -> OpenSpan {
        let spanId = ids.spanId()
        request.head.headers.replaceOrAdd(
            name: TraceContext.traceparent, value: TraceParent.header(traceId: parent.traceId, spanId: spanId, sampled: true))
        return OpenSpan(
            traceId: parent.traceId, spanId: spanId, parentSpanId: parent.spanId, traceState: parent.traceState,
            name: "\(request.head.method.rawValue) \(request.upstreamName)", kind: .client, startNanos: Self.now(),
            attributes: [
                SpanAttribute("http.request.method", request.head.method.rawValue),
                SpanAttribute("url.path", LoggedPath.redacting(String(request.head.uri.prefix { $0 != "?" }))),
            ])
    }

    /// Ends `span` with the answer's status (failed for a 5xx) and records it.
    func end(_ span: OpenSpan?, status: HTTPResponse.Status, requestId: String? = nil) {
        guard let span else { return }
        var attributes = span.attributes
        attributes.append(SpanAttribute("http.response.status_code", Int64(status.code)))
        if let requestId { attributes.append(SpanAttribute("request_id", requestId)) }
        export.record(
            RecordedSpan(
                traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, traceState: span.traceState, name: span.name,
                kind: span.kind, startNanos: span.startNanos, endNanos: max(Self.now(), span.startNanos), attributes: attributes,
                isError: status.code >= 500))
    }

    /// Nanoseconds since the Unix epoch (the real-time clock, as OTLP's times are).
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    private static let traceparent = HTTPField.Name(TraceContext.traceparent)!
    private static let tracestate = HTTPField.Name("tracestate")!
}
