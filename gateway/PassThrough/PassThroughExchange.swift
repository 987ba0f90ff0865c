import HTTPTypes
import Metrics
import NIOCore

/// What the pass-through holds for one request it forwards, from its head to the end of its answer: its upstream
/// connection, the address it leases, its spans and gauge. How far it has got is the state machine's
/// (`PassThroughStateMachine.Exchange`). Used on its client connection's event loop only.
final class PassThroughExchange {
    let request: PassThroughRequest
    let requestId: String
    let method: HTTPRequest.Method
    /// When the request's head was read (its admission's wait counts in its duration).
    let started: ContinuousClock.Instant
    /// The in-progress gauge of `method`, incremented while the exchange lasts.
    let active: Meter
    /// The server span of the request and the client span of its upstream call, while tracing is on.
    var serverSpan: PassThroughTracing.OpenSpan?
    var clientSpan: PassThroughTracing.OpenSpan?
    /// The upstream connection, once there is one.
    var connection: UpstreamConnectionPool.Connection?
    /// The address the current attempt goes to, counted in flight by its balancer until the answer's head arrives.
    var lease: UpstreamLease?

    init(request: PassThroughRequest, requestId: String, method: HTTPRequest.Method, started: ContinuousClock.Instant, active: Meter) {
        self.request = request
        self.started = started
        self.requestId = requestId
        self.method = method
        self.active = active
    }

    /// Ends the current attempt's lease, if any (see `UpstreamLease.finish`).
    func endLease(connectFailed: Bool = false) {
        lease?.finish(connectFailed: connectFailed)
        lease = nil
    }

    /// Closes the upstream connection, if any: the exchange no longer reads from it.
    func closeConnection() {
        guard let connection else { return }
        connection.relay.exchange = nil
        connection.channel.close(promise: nil)
        self.connection = nil
    }
}

extension PassThroughRequest {
    /// What the pass-through's state machine needs of it.
    func terms(method: HTTPRequest.Method) -> PassThroughStateMachine.ForwardTerms {
        .init(
            isHead: method == .head, isSafeToRetry: isSafeToRetry, hasBody: hasBody, undeclaredBodyLimit: undeclaredBodyLimit,
            expectsContinue: expectsContinue)
    }
}
