import AsyncHTTPClient
import Foundation
import Tracing

/// Sends an internal HTTP request inside a client span and carries that span to the callee in `traceparent`,
/// replacing any copy the request had (a client's, copied by the gateway). While tracing is off the request goes
/// out untouched.
///
/// Give it a client whose own tracing is off (`configuration.tracing.tracer = nil`): AsyncHTTPClient's spans record
/// the full URL, and a path can hold a share token. A client that traces by itself still works: it then adds the
/// `traceparent` (of this span) and its own span below this one.
public enum HTTPClientSpan {
    /// Runs `execute` with `request` (sent by `client`) inside a span named `name` (e.g. `GET meals`) and returns
    /// its answer.
    public static func send(
        _ request: HTTPClientRequest, name: String, client: HTTPClient, _ execute: (HTTPClientRequest) async throws -> HTTPClientResponse
    ) async throws -> HTTPClientResponse {
        guard TraceContext.isTracing else { return try await execute(request) }
        return try await TracedOperation.run(name, ofKind: .client) { span in
            var request = request
            request.headers.remove(name: TraceContext.traceparent)
            request.headers.remove(name: "tracestate")
            if client.tracer == nil {
                InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: HTTPHeadersCarrier())
            }
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
