import Metrics

/// How the gateway's requests were taken, `gateway_pass_through_requests_total` by `outcome`: `forwarded` to an
/// upstream, `refused` (the one error shape, or a CORS preflight answered), `delegated` to the router (the gateway's
/// own and composed routes). `gateway_pass_through_admission_waits_total` counts the admissions that waited (a token's
/// first request, a rate limit only the shared store decides): the rest were decided without suspending.
/// `gateway_pass_through_body_holds_total` counts the times reading a request body from a client was held because
/// its upstream took it slower than the client sent it (or was still being connected). `gateway_open_streams` is the
/// number of Server-Sent Events answers being relayed.
struct PassThroughCounters: Sendable {
    let forwarded: Counter
    let refused: Counter
    let delegated: Counter
    let admissionWaits: Counter
    let bodyHolds: Counter
    let openStreams: Meter

    init(factory: any MetricsFactory) {
        func counter(_ outcome: String) -> Counter {
            Counter(label: "gateway_pass_through_requests_total", dimensions: [("outcome", outcome)], factory: factory)
        }
        forwarded = counter("forwarded")
        refused = counter("refused")
        delegated = counter("delegated")
        admissionWaits = Counter(label: "gateway_pass_through_admission_waits_total", factory: factory)
        bodyHolds = Counter(label: "gateway_pass_through_body_holds_total", factory: factory)
        openStreams = Meter(label: "gateway_open_streams", factory: factory)
    }
}
