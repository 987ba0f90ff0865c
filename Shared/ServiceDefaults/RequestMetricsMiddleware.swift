import Hummingbird
import Metrics
import Synchronization

/// Counts every request by route pattern, method and status (`hb_requests_total`), times it (`http_server_request_duration`,
/// seconds), gauges the requests in progress (`http_server_active_requests`) and counts those that ended in a thrown
/// error (`hb_request_errors_total`, by the status the client was answered). It sits inside `ErrorMiddleware`, so it sees
/// handlers' errors as errors. The labels are those of Hummingbird's `MetricsMiddleware` (its counters' names with
/// `_total`), which it replaces:
/// that one, placed there, recorded no duration for errors (a gateway's 30 s timeouts vanished from the latency
/// histogram) and counted every error that is not an `HTTPResponseError` (an `APIError`, a database that is away) as
/// a 500 whatever the client got.
public struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let handles: RequestMetricsRecorder

    /// Metrics go to `factory`; tests pass their own.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.handles = RequestMetricsRecorder(factory: factory)
    }

    /// Records into `recorder`, which another path of the same server (the gateway's pass-through) also uses.
    public init(recorder: RequestMetricsRecorder) {
        self.handles = recorder
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let active = handles.active(request.method)
        active.increment()
        do {
            var response = try await next(request, context)
            let status = response.status
            let body = response.body
            let done: @Sendable () -> Void = { [handles] in
                handles.record(route: Self.route(context), method: request.method, status: status, since: started, failed: false)
                active.decrement()
            }
            // Recorded once the body is written, so a streamed answer is timed to its end (or to its failure).
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                do {
                    try await body.write(writer)
                    done()
                } catch {
                    done()
                    throw error
                }
            }
            return response
        } catch {
            handles.record(
                route: Self.route(context), method: request.method, status: HTTPResponse.Status(answering: error), since: started,
                failed: true)
            active.decrement()
            throw error
        }
    }

    /// The matched route's pattern, never the raw path (whose ids would make a series per resource): `NotFound` when
    /// no route matched, `Unknown` when the request failed before routing.
    private static func route(_ context: Context) -> String { context.endpointPath ?? "Unknown" }
}
