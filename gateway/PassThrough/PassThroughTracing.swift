import HTTPTypes
import NIOHTTP1
import ServiceDefaults
import Tracing

/// The spans of the requests the pass-through answers itself, made on the event loop without a task: a server span per
/// request (continuing the client's W3C `traceparent`, named by the route: `POST /api/meals`), and below it a client
/// span for the upstream call (`POST meals`), whose context replaces the client's `traceparent` on the way up, so the
/// service's span is its child. The router makes the spans of the requests it answers (`RequestTracingMiddleware`).
/// Paths are recorded as logs show them (share tokens redacted), query strings not at all; health probes are not traced.
struct PassThroughTracing: Sendable {
    let tracer: any Tracer

    /// The tracer in charge when the gateway is built (bootstrapped, or bound to the building task in tests); nil while
    /// tracing is off, so the pass-through costs nothing for it then.
    static func current() -> PassThroughTracing? {
        TraceContext.isTracing ? PassThroughTracing(tracer: InstrumentationSystem.tracer) : nil
    }

    /// The server span of `request`, whose route is `route` (nil when it matched none); nil for health probes.
    func serverSpan(for request: HTTPRequest, route: String?) -> (any Span)? {
        let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? "/"
        guard path != "/health", !path.hasPrefix("/health/") else { return nil }
        let parent = TraceContext.context(
            traceparent: request.headerFields[Self.traceparent], tracestate: request.headerFields[Self.tracestate],
            base: InstrumentationContext.current ?? .topLevel, using: tracer)
        let method = request.method.rawValue
        let span = tracer.startAnySpan(route.map { "\(method) \($0)" } ?? method, context: parent, ofKind: .server)
        span.attributes["http.request.method"] = method
        span.attributes["url.path"] = LoggedPath.redacting(path)
        if let route { span.attributes["http.route"] = route }
        return span
    }

    /// The client span of the upstream call of `request` under `parent`; its context replaces the trace context of
    /// `request.head`.
    func clientSpan(for request: inout PassThroughRequest, under parent: any Span) -> any Span {
        let span = tracer.startAnySpan("\(request.head.method.rawValue) \(request.upstreamName)", context: parent.context, ofKind: .client)
        span.attributes["http.request.method"] = request.head.method.rawValue
        span.attributes["url.path"] = LoggedPath.redacting(String(request.head.uri.prefix { $0 != "?" }))
        request.head.headers.remove(name: TraceContext.traceparent)
        request.head.headers.remove(name: "tracestate")
        tracer.inject(span.context, into: &request.head.headers, using: HTTPHeadersCarrier())
        return span
    }

    /// Ends `span` with the answer's status, marked failed for a 5xx.
    static func end(_ span: (any Span)?, status: HTTPResponse.Status, requestId: String? = nil) {
        guard let span else { return }
        span.attributes["http.response.status_code"] = status.code
        if let requestId { span.attributes["request_id"] = requestId }
        if status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }

    private static let traceparent = HTTPField.Name(TraceContext.traceparent)!
    private static let tracestate = HTTPField.Name("tracestate")!
}
