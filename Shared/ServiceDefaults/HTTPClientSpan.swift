import AsyncHTTPClient
import Foundation
import Tracing

/// Sends an internal HTTP request inside a client span and carries that span to the callee in `traceparent`
/// (replacing any copy the request had). While tracing is off the request goes out untouched.
public enum HTTPClientSpan {
    /// Runs `execute` with `request` inside a span named `name` (e.g. `GET meals`) and returns its answer.
    public static func send(
        _ request: HTTPClientRequest, name: String, _ execute: (HTTPClientRequest) async throws -> HTTPClientResponse
    ) async throws -> HTTPClientResponse {
        guard TraceContext.isTracing else { return try await execute(request) }
        return try await TracedOperation.run(name, ofKind: .client) { span in
            var request = request
            // A client's own `tracestate` belongs to its `traceparent`, which the span's replaces.
            request.headers.remove(name: "tracestate")
            InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: HTTPHeadersCarrier())
            span.attributes["http.request.method"] = request.method.rawValue
            if let url = URL(string: request.url) {
                span.attributes["server.address"] = url.host
                span.attributes["server.port"] = url.port
                span.attributes["url.path"] = LoggedPath.redacting(url.path)
            }
            let response = try await execute(request)
            span.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }
}
