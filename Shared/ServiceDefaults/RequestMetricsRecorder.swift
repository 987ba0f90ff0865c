import Hummingbird
import Metrics
import Synchronization

/// The request metrics of a server (`hb_requests_total`, `http.server.request.duration`, `http.server.active_requests`,
/// `hb_request_errors_total`): the metric objects, made once per method and per route, method and status, so a request costs
/// a dictionary look-up instead of the factory's.
public final class RequestMetricsRecorder: Sendable {
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
    // Apart, so that successful answers add no `hb_request_errors_total` series.
    private let errors = Mutex<[Key: Counter]>([:])

    /// Metrics go to `factory`; tests pass their own.
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// The gauge of `method`'s requests in progress.
    public func active(_ method: HTTPRequest.Method) -> Meter {
        actives.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)], factory: factory)
            meters[method] = meter
            return meter
        }
    }

    /// Counts and times one answered request; `failed` when it ended in an error answer (`hb_request_errors_total`).
    public func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since started: ContinuousClock.Instant, failed: Bool) {
        let key = Key(route: route, method: method, status: status.code)
        let endpoint = endpoints.withLock { endpoints in
            if let endpoint = endpoints[key] { return endpoint }
            let dimensions = [
                ("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", String(status.code)),
            ]
            let endpoint = Endpoint(
                requests: Counter(label: "hb.requests.total", dimensions: dimensions, factory: factory),
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
                label: "hb.request.errors.total",
                dimensions: [("http.route", route), ("http.request.method", method.rawValue), ("error.type", String(status.code))],
                factory: factory)
            errors[key] = counter
            return counter
        }
        counter.increment()
    }
}
