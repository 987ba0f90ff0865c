import Metrics

/// The metrics of one upstream's balancer, by `upstream` and (but for the count of available addresses) `address`:
/// `gateway_upstream_in_flight` (requests sent and not yet answered), `gateway_upstream_ejections_total` by `reason`
/// (`connect`: refused or timed out connecting; `probe`: its readiness answered non-2xx or not in time),
/// `gateway_upstream_available_addresses` (addresses in rotation) and `gateway_upstream_retries_total` by `reason`
/// (counted at the address a request left for another attempt).
struct UpstreamBalancerMetrics: Sendable {
    /// Why an address was taken out of rotation.
    enum EjectionReason: String, Sendable { case connect, probe }
    /// Why a request was sent again.
    enum RetryReason: String, Sendable { case connect, closed }

    let inFlight: [Gauge]
    let available: Gauge
    private let connectEjections: [Counter]
    private let probeEjections: [Counter]
    private let connectRetries: [Counter]
    private let closedRetries: [Counter]

    init(upstream: String, endpoints: [UpstreamEndpoint], factory: any MetricsFactory) {
        func each<Metric>(_ make: (String, [(String, String)], any MetricsFactory) -> Metric, _ label: String, _ reason: String?) -> [Metric] {
            endpoints.map { endpoint in
                make(label, [("upstream", upstream), ("address", endpoint.label)] + (reason.map { [("reason", $0)] } ?? []), factory)
            }
        }
        let gauge = { Gauge(label: $0, dimensions: $1, factory: $2) }
        let counter = { Counter(label: $0, dimensions: $1, factory: $2) }
        inFlight = each(gauge, "gateway_upstream_in_flight", nil)
        available = Gauge(label: "gateway_upstream_available_addresses", dimensions: [("upstream", upstream)], factory: factory)
        connectEjections = each(counter, "gateway_upstream_ejections_total", EjectionReason.connect.rawValue)
        probeEjections = each(counter, "gateway_upstream_ejections_total", EjectionReason.probe.rawValue)
        connectRetries = each(counter, "gateway_upstream_retries_total", RetryReason.connect.rawValue)
        closedRetries = each(counter, "gateway_upstream_retries_total", RetryReason.closed.rawValue)
    }

    /// The ejection counter of the address at `index` for `reason`.
    func ejections(_ index: Int, _ reason: EjectionReason) -> Counter {
        switch reason {
        case .connect: connectEjections[index]
        case .probe: probeEjections[index]
        }
    }

    /// The retry counter of the address at `index` for `reason`.
    func retries(_ index: Int, _ reason: RetryReason) -> Counter {
        switch reason {
        case .connect: connectRetries[index]
        case .closed: closedRetries[index]
        }
    }
}
