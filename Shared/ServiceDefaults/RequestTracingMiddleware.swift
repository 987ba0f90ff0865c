import HTTPTypes
import Hummingbird
import Synchronization
import Tracing

/// Makes a server span for each request, continuing the caller's trace when it sent a well-formed W3C
/// `traceparent`, and puts the trace id on the request's log lines. The span is named by the matched route
/// (`POST /api/meals`), or by the method alone when no route of this router answered (a proxied request at the
/// gateway), and ends when the response body has been written. Paths are recorded as logs show them (share tokens redacted), and
/// query strings not at all. Health probes are not traced (they would start a trace every few seconds; `/metrics`
/// is on the admin server, which has no request spans). While tracing is off it only calls the next step.
public struct RequestTracingMiddleware<Context: ServiceRequestContext>: RouterMiddleware {
    private static var traceparent: HTTPField.Name { HTTPField.Name(TraceContext.traceparent)! }
    private static var tracestate: HTTPField.Name { HTTPField.Name("tracestate")! }

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard TraceContext.isTracing, !Self.isProbe(request.uri.path) else { return try await next(request, context) }
        let parent = TraceContext.context(
            traceparent: request.headers[Self.traceparent], tracestate: request.headers[Self.tracestate],
            base: InstrumentationContext.current ?? .topLevel)
        let method = request.method.rawValue
        let span = startSpan(method, context: parent, ofKind: .server)
        span.attributes["http.request.method"] = method
        span.attributes["url.path"] = LoggedPath.redacting(request.uri.path)
        var context = context
        if let traceId = TraceContext.traceId(of: span.context) { context.logger[metadataKey: "trace_id"] = .string(traceId) }
        let completion = SpanCompletion(span)
        do {
            var response = try await InstrumentationContext.$current.withValue(span.context) { try await next(request, context) }
            if let route = context.endpointPath {
                span.operationName = "\(method) \(route)"
                span.attributes["http.route"] = route
            }
            span.attributes["http.response.status_code"] = Int(response.status.code)
            span.attributes["request_id"] = response.headers[.requestId]
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            let body = response.body
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { completion.end() }
                try await body.write(writer)
            }
            return response
        } catch {
            TracedOperation.markFailed(span, error)
            completion.end()
            throw error
        }
    }

    /// `/health` and `/health/...`: what orchestrators and the gateway's health report call on a timer.
    static func isProbe(_ path: String) -> Bool {
        path == "/health" || path.hasPrefix("/health/")
    }

    /// Ends a request's span once: after its body is written, or when the response is dropped unwritten.
    private final class SpanCompletion: Sendable {
        private let span: Mutex<(any Span)?>

        init(_ span: any Span) { self.span = Mutex(span) }

        func end() {
            span.withLock { $0.take() }?.end()
        }

        deinit { end() }
    }
}
