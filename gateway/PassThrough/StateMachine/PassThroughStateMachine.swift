import HTTPTypes
import NIOCore
import NIOHTTP1

/// Every decision of the pass-through (`PassThroughHandler`) for one client connection, and nothing else: what each
/// request part read from the client goes to, when reads from the client wait, what an upstream's answer becomes, when
/// an exchange ends and how, and when the connection closes. Inputs are the events the handler sees (a part read, an
/// admission decided, a connection made, an answer's head, a deadline check, the client gone...); outputs are the
/// actions it carries out, which are all its I/O. No channel, no clock, no task: the handler passes the time where a
/// decision needs it, and the transitions are tested one by one (`PassThroughStateMachineTests`).
///
/// An event that cannot happen in the state the connection is in (a body part when no request is read, an answer's
/// body before its head, a second head) throws `IllegalEvent`; the handler closes the connection on it.
///
/// Two things are tracked: where the parts of the request being read go (`Reading`), and what is answering the
/// request whose answer is in progress (`Answering`). They differ while an answer outlives its request's reading (an
/// upstream still answering a request read whole) or the reverse (a refused request's body still being read and
/// dropped). Requests read while another is answered (pipelining) wait in `held`, in order.
struct PassThroughStateMachine {
    /// Where the parts of the request being read go.
    enum Reading: Equatable {
        /// Between requests: the next part is a head.
        case idle
        /// To the router (the gateway's own routes, composed routes, and a head it could not read).
        case router
        /// To the upstream of the exchange in progress.
        case exchange
        /// Nowhere: `read` bytes of the rest of the body dropped so far; past `limit` the connection closes.
        case discard(read: Int, limit: Int)
        /// Nowhere: the client's connection went away (parts its decoder still gives, from the read that was in
        /// progress when it closed, are dropped).
        case gone
    }

    /// What answers the request whose answer is in progress.
    enum Answering {
        case idle
        /// Its admission is deciding (`number` tells a late decision from the current one).
        case admitting(number: Int)
        /// The router, whose answer's head gets `answerHeaders` (rate limit, CORS).
        case router(answerHeaders: HTTPFields)
        /// An upstream.
        case exchange(Exchange)
    }

    /// Reads from the client: made when the pipeline asks, or held while the upstream does not take the request body
    /// as fast as the client sends it (or is not connected yet), or while an admission decides.
    enum ClientReads: Equatable {
        case flowing
        /// Held; `pending` when the pipeline asked for a read meanwhile.
        case held(pending: Bool)
    }

    /// The most of a refused request's chunked body read and dropped to keep the connection for the next request. A
    /// declared body, and the rest of a body the upstream answered early (a 413 of the service's own limit, say), are
    /// read whole (they are within the route's limit), so their client can read the answer.
    static let discardLimit = 1 << 20

    /// The status recorded for a request whose client went away before any answer (nginx's "client closed request").
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    /// How long an upstream has to answer, from the request's last part read.
    let upstreamTimeout: TimeAmount

    // The state, changed only by the transitions below and in the extensions (internal for them: they are in files of
    // their own); the handler reads none of it.
    var reading = Reading.idle
    var answering = Answering.idle
    var clientReads = ClientReads.flowing
    /// Parts of requests read while another was answered.
    private var held = CircularBuffer<HTTPServerRequestPart>()
    /// Counts admissions, so that a decision arriving after its connection closed is dropped.
    private var admissions = 0
    /// Close once the answer in progress has been written (shutdown, the client asked for it, an answer that ends
    /// with its connection).
    var closesAfterAnswer = false
    /// The server is shutting down: a stream of events that begins now ends at once.
    var quiescing = false
    /// The client of the request being started speaks HTTP/1.1 (not HTTP/1.0).
    private var clientIsHTTP11 = true
    /// Parts are being read from the client (between a read's first part and its end): upstream writes are flushed at
    /// the read's end, so a request's head and end go out in one write.
    private var inClientRead = false
    /// The router got parts since the end of the last read: it is told of the read's end (its inbound stream delivers
    /// on that).
    private var routerGotParts = false
    /// A check of the exchange's deadline is scheduled (one per connection, see `deadlineCheckFired`).
    var deadlineCheckScheduled = false

    init(upstreamTimeout: TimeAmount) {
        self.upstreamTimeout = upstreamTimeout
    }

    /// An event that cannot happen in the state the connection is in.
    struct IllegalEvent: Error, Equatable, CustomStringConvertible {
        let event: String
        let state: String
        var description: String { "pass-through event \(event) cannot happen while \(state)" }
    }

    func illegal(_ event: String) -> IllegalEvent {
        let answeringState =
            switch answering {
            case .idle: "nothing is answered"
            case .admitting: "an admission decides"
            case .router: "the router answers"
            case .exchange(let exchange): exchange.answer == nil ? "an upstream is awaited" : "an upstream answers"
            }
        return IllegalEvent(event: event, state: "reading \(reading), \(answeringState)")
    }

    var isAnswering: Bool {
        if case .idle = answering { false } else { true }
    }

    // MARK: - The client's request

    /// A part read from the client. `now` is asked only when the part moves the exchange's deadline.
    mutating func requestPartRead(_ part: HTTPServerRequestPart, now: @autoclosure () -> NIODeadline) throws(IllegalEvent) -> RequestPartAction {
        inClientRead = true
        if reading == .gone { return .nothing }
        if reading == .idle, isAnswering || !held.isEmpty {
            held.append(part)
            return .nothing
        }
        return try take(part, now: now())
    }

    /// The next part read while another request was answered, when it can be taken now; nil when there is none or it
    /// must wait still. The handler takes them in a loop (`RequestPartAction.takeHeldParts`, `ExchangeEnding`), then
    /// calls `heldPartsTaken`.
    mutating func nextHeldPart(now: @autoclosure () -> NIODeadline) throws(IllegalEvent) -> RequestPartAction? {
        guard let part = held.first, !(reading == .idle && isAnswering) else { return nil }
        held.removeFirst()
        return try take(part, now: now())
    }

    /// The held parts that can be taken now were taken: true when the router got some outside a read from the socket
    /// and is to be told of a read's end.
    mutating func heldPartsTaken() -> Bool {
        guard !inClientRead, routerGotParts else { return false }
        routerGotParts = false
        return true
    }

    /// The end of a read from the socket: true when the router got parts in it and is to be told.
    mutating func clientReadEnded() -> Bool {
        inClientRead = false
        guard routerGotParts else { return false }
        routerGotParts = false
        return true
    }

    /// Where an upstream write goes out now (false: at the end of the client's read in progress).
    var flushesUpstreamNow: Bool { !inClientRead }

    /// The head the handler could not turn into a request (a method that is not a token): the router was told of the
    /// error and ends the connection; the rest of the request goes to it.
    mutating func requestHeadUnreadable() throws(IllegalEvent) {
        guard case .admitting = answering else { throw illegal("requestHeadUnreadable") }
        answering = .idle
        reading = .router
    }

    private mutating func take(_ part: HTTPServerRequestPart, now: @autoclosure () -> NIODeadline) throws(IllegalEvent) -> RequestPartAction {
        switch reading {
        case .gone:
            return .nothing
        case .idle:
            guard case .head(let head) = part else { throw illegal("request \(part.kind) with no head") }
            // The connection closes after the answer when the client asked so (`Connection: close`, or HTTP/1.0
            // without `keep-alive`).
            if !head.isKeepAlive { closesAfterAnswer = true }
            clientIsHTTP11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
            admissions += 1
            answering = .admitting(number: admissions)
            return .admit(head, number: admissions)
        case .router:
            if case .head = part { throw illegal("request head before the end of the one read") }
            if case .end = part { reading = .idle }
            routerGotParts = true
            return .passToRouter(part)
        case .exchange:
            if case .end = part { reading = .idle }
            return try forward(part, now: now())
        case .discard(let read, let limit):
            switch part {
            case .head:
                throw illegal("request head before the end of the one read")
            case .body(let buffer):
                reading = .discard(read: read + buffer.readableBytes, limit: limit)
                return read + buffer.readableBytes > limit ? .closeClient : .nothing
            case .end:
                reading = .idle
                return .takeHeldParts
            }
        }
    }

    // MARK: - Client reads

    /// The pipeline asks for a read: true when it is made now, false when reads are held (it is made on release).
    mutating func readRequested() -> Bool {
        guard case .held = clientReads else { return true }
        clientReads = .held(pending: true)
        return false
    }

    /// Holds reads from the client: true when they were flowing.
    mutating func holdClientReads() -> Bool {
        guard clientReads == .flowing else { return false }
        clientReads = .held(pending: false)
        return true
    }

    /// Lets reads go on: true when one was asked for meanwhile and is to be made now.
    mutating func releaseClientReads() -> Bool {
        guard case .held(let pending) = clientReads else { return false }
        clientReads = .flowing
        return pending
    }

    // MARK: - Admission

    /// The admission of request `number` suspends (a token's first verification, a limit the shared store decides):
    /// reads wait for its decision.
    mutating func admissionWaits(number: Int) throws(IllegalEvent) {
        guard case .admitting(number) = answering else { throw illegal("admissionWaits") }
        _ = holdClientReads()
    }

    /// What the admission of request `number` decided (at once, or after a wait). A decision for a request no longer
    /// admitted (its client went away) is `.ignore`.
    mutating func admitted(_ decision: Admission, number: Int, now: NIODeadline) -> AdmissionAction {
        guard case .admitting(number) = answering else { return .ignore }
        switch decision {
        case .router(let answerHeaders, let expectsContinue):
            reading = .router
            answering = .router(answerHeaders: answerHeaders)
            routerGotParts = true
            // A shutdown that began while the admission waited was held here: the router learns of it now.
            return .delegate(writesContinue: expectsContinue, quiescesRouter: closesAfterAnswer)
        case .preflight:
            reading = .discard(read: 0, limit: Self.discardLimit)
            answering = .idle
            return .answerPreflight(closing: closesAfterAnswer)
        case .refuse(let closesConnection, let declaredLength):
            // A declared body is within the route's limit (a larger one is refused with the connection closed): it is
            // read whole, so its client, still sending, can read the refusal (a 401 to refresh its token on, say).
            reading = .discard(read: 0, limit: max(Self.discardLimit, declaredLength ?? 0))
            answering = .idle
            if closesConnection { closesAfterAnswer = true }
            return .refuse(closing: closesAfterAnswer)
        case .forward(let terms):
            reading = .exchange
            var exchange = Exchange(terms: terms, clientIsHTTP11: clientIsHTTP11)
            exchange.deadline = now + upstreamTimeout
            answering = .exchange(exchange)
            let check: NIODeadline? = deadlineCheckScheduled ? nil : exchange.deadline
            deadlineCheckScheduled = true
            return .forward(writesContinue: terms.expectsContinue, schedulesDeadlineCheck: check)
        }
    }

    /// A waited admission's decision was carried out: true when a read is to be made now (reads go on unless an
    /// exchange holds them until its upstream connection is made).
    mutating func waitedAdmissionApplied() -> Bool {
        if case .exchange(let exchange) = answering, !exchange.connected { return false }
        return releaseClientReads()
    }

    // MARK: - The router's answer

    /// The head of the router's answer: the headers it gets (nil for none: an interim answer, or an answer to a
    /// request the router was not given, such as its codec's error).
    func routerAnswerHeadWritten(informational: Bool) -> HTTPFields? {
        guard case .router(let answerHeaders) = answering, !informational, !answerHeaders.isEmpty else { return nil }
        return answerHeaders
    }

    /// The end of the router's answer: true when it answered the request it was given, and held parts may go on.
    mutating func routerAnswerEnded() -> Bool {
        guard case .router = answering else { return false }
        answering = .idle
        return true
    }

    // MARK: - Shutdown and the client's end

    /// The server is shutting down.
    mutating func quiesceRequested() -> QuiesceAction {
        switch answering {
        case .exchange(var exchange):
            closesAfterAnswer = true
            quiescing = true
            guard let answer = exchange.answer, answer.isStream else { return .held }
            return .endStream(endStream(&exchange, answer: answer))
        case .admitting:
            closesAfterAnswer = true
            quiescing = true
            return .held
        case .idle, .router:
            return .passOn
        }
    }

    /// The pipeline closes the connection (the router, with nothing to answer): true when it closes now; an exchange
    /// in progress answers first (all but closing the input only).
    mutating func closeRequested(inputOnly: Bool) -> Bool {
        guard case .exchange = answering, !inputOnly else { return true }
        closesAfterAnswer = true
        return false
    }

    /// The client's connection went away: what is left of the exchange in progress, if any, to record (its
    /// upstream connection closes: the upstream may still be writing an answer nobody reads). A decision that comes
    /// later for its admission is ignored.
    mutating func clientGone() -> Abandonment? {
        defer {
            answering = .idle
            reading = .gone
            held.removeAll()
        }
        guard case .exchange(let exchange) = answering else { return nil }
        // Recorded with the answer's status when one had begun, else 499, as a failure unless it was a stream of events,
        // which ends that way.
        let answer = exchange.answer
        return Abandonment(
            status: answer?.status ?? Self.clientClosedRequest, failed: !(answer?.isStream == true), wasStream: answer?.isStream == true,
            closesUpstream: exchange.connected)
    }
}

extension HTTPServerRequestPart {
    /// The part's kind, for `IllegalEvent`.
    var kind: String {
        switch self {
        case .head: "head"
        case .body: "body"
        case .end: "end"
        }
    }
}
