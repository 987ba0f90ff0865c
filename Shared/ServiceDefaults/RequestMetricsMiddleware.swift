import Hummingbird
import Metrics
import Synchronization

/// Counts every request by route pattern, method and status (`hb_requests`), times it (`http_server_request_duration`,
/// seconds), gauges the requests in progress (`http_server_active_requests`) and counts those that ended in a thrown
/// error (`hb_request_errors`, by the status the client was answered). It sits inside `ErrorMiddleware`, so it sees
/// handlers' errors as errors. The names and labels are those of Hummingbird's `MetricsMiddleware`, which it replaces:
/// that one, placed there, recorded no duration for errors (a gateway's 30 s timeouts vanished from the latency
/// histogram) and counted every error that is not an `HTTPResponseError` (an `APIError`, a database that is away) as
/// a 500 whatever the client got.
public struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let handles: Handles

    /// Metrics go to `factory`; tests pass their own.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.handles = Handles(factory: factory)
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

    /// The metric objects, made once per method and per route, method and status: a dictionary look-up per request
    /// instead of the factory's.
    private final class Handles: Sendable {
        struct Key: Hashable {
            var route: String
            var method: HTTPRequest.Method
            var status: Int
        }

        struct Endpoint: Sendable {
            var requests: Counter
            var duration: Metrics.Timer
        }

        private let factory: any MetricsFactory
        private let actives = Mutex<[HTTPRequest.Method: Meter]>([:])
        private let endpoints = Mutex<[Key: Endpoint]>([:])
        // Apart, so that successful answers add no `hb_request_errors` series.
        private let errors = Mutex<[Key: Counter]>([:])

        init(factory: any MetricsFactory) {
            self.factory = factory
        }

        func active(_ method: HTTPRequest.Method) -> Meter {
            actives.withLock { meters in
                if let meter = meters[method] { return meter }
                let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)], factory: factory)
                meters[method] = meter
                return meter
            }
        }

        func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since started: ContinuousClock.Instant, failed: Bool) {
            let key = Key(route: route, method: method, status: status.code)
            let endpoint = endpoints.withLock { endpoints in
                if let endpoint = endpoints[key] { return endpoint }
                let dimensions = [
                    ("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", String(status.code)),
                ]
                let endpoint = Endpoint(
                    requests: Counter(label: "hb.requests", dimensions: dimensions, factory: factory),
                    duration: Metrics.Timer(
                        label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory))
                endpoints[key] = endpoint
                return endpoint
            }
            endpoint.requests.increment()
            endpoint.duration.record(duration: started.duration(to: .now))
            guard failed else { return }
            let counter = errors.withLock { errors in
                if let counter = errors[key] { return counter }
                let counter = Counter(
                    label: "hb.request.errors",
                    dimensions: [("http.route", route), ("http.request.method", method.rawValue), ("error.type", String(status.code))],
                    factory: factory)
                errors[key] = counter
                return counter
            }
            counter.increment()
        }
    }
}
