import HTTPTypes
import Metrics
import NIOCore
import Tracing

/// One request the pass-through forwards, from its head to the end of its answer: its upstream connection and how
/// far each side has got. Used on its client connection's event loop only.
final class PassThroughExchange {
    let request: PassThroughRequest
    let requestId: String
    let method: HTTPRequest.Method
    /// When the request's head was read (its admission's wait counts in its duration).
    let started: ContinuousClock.Instant
    /// The in-progress gauge of `method`, incremented while the exchange lasts.
    let active: Meter
    /// The server span of the request and the client span of its upstream call, while tracing is on.
    var serverSpan: (any Span)?
    var clientSpan: (any Span)?
    /// The upstream connection, once there is one.
    var connection: UpstreamConnectionPool.Connection?
    /// The address the current attempt goes to, counted in flight by its balancer until the answer's head arrives.
    var lease: UpstreamLease?
    /// Addresses whose connection could not be made for this request (positions in the balancer's endpoints).
    var unreachable: [Int] = []
    /// Body parts read from the client before the upstream connection was ready.
    var bodyWaiting: [ByteBuffer] = []
    /// Body bytes read from the client so far, checked against `PassThroughRequest.undeclaredBodyLimit`.
    var bodyBytesRead = 0
    /// The client's whole request has been read.
    var requestRead = false
    /// The whole request has been written to the upstream.
    var requestSent = false
    /// The answer's head has been written to the client: from then on a failure can only close the connection.
    var answerStatus: HTTPResponse.Status?
    /// The upstream's whole answer has been read.
    var answerRead = false
    /// The answer is a stream of Server-Sent Events (`text/event-stream`): it has no end of its own, so no upstream
    /// timeout applies once it started, and at shutdown it is ended (the client reconnects elsewhere).
    var isStream = false
    /// The client speaks HTTP/1.1; an HTTP/1.0 client reads no chunked answer.
    let clientIsHTTP11: Bool
    /// How a chunked answer's framing reaches the client.
    var answerChunks = AnswerChunks.asSent
    /// The upstream connection may serve another request after this answer.
    var upstreamKeepsAlive = true
    /// The request has been sent once more already.
    var retried = false
    /// Reading from the upstream is paused because the client is not taking the answer as fast.
    var upstreamPaused = false
    /// When the upstream's answer is late (504, or the connection closed once the answer began); nil once no
    /// upstream timeout applies.
    var deadline: NIODeadline?

    init(
        request: PassThroughRequest, requestId: String, method: HTTPRequest.Method, clientIsHTTP11: Bool, started: ContinuousClock.Instant,
        active: Meter
    ) {
        self.request = request
        self.clientIsHTTP11 = clientIsHTTP11
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

    /// It may be sent again on a new connection: a safe request without a body whose connection closed before any
    /// answer (RFC 9110 section 9.2.2; a draining or restarting service closes kept-alive connections), once.
    var mayRetry: Bool { request.isSafeToRetry && !request.hasBody && !retried && answerStatus == nil }
}

/// How a chunked answer's framing reaches the client.
enum AnswerChunks {
    /// As the upstream sent it.
    case asSent
    /// In chunks of the gateway's: a stream of events, read as its chunks' data, so that the gateway can end it between
    /// two chunks when it shuts down.
    case again
    /// Not at all: an HTTP/1.0 client gets the data, and the end of its connection ends the answer.
    case removed
}
