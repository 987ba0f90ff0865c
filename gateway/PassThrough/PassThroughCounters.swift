import Metrics

/// How the gateway's requests were taken, `gateway_pass_through_requests_total` by `outcome`: `forwarded` by the
/// pass-through itself, `refused` by it (429), `delegated` to the router. The share of `delegated` shows how much
/// traffic takes the slower path (browsers, first use of a token, the gateway's own routes).
/// `gateway_pass_through_body_holds_total` counts the times reading a request body from a client was held because
/// its upstream took it slower than the client sent it (or was still being connected).
struct PassThroughCounters: Sendable {
    let forwarded: Counter
    let refused: Counter
    let delegated: Counter
    let bodyHolds: Counter

    init(factory: any MetricsFactory) {
        func counter(_ outcome: String) -> Counter {
            Counter(label: "gateway_pass_through_requests_total", dimensions: [("outcome", outcome)], factory: factory)
        }
        forwarded = counter("forwarded")
        refused = counter("refused")
        delegated = counter("delegated")
        bodyHolds = Counter(label: "gateway_pass_through_body_holds_total", factory: factory)
    }
}
