import HTTPTypes
import NIOCore
import NIOHTTP1

extension PassThroughStateMachine {
    /// How far a forwarded request and its answer have got.
    struct Exchange {
        let terms: ForwardTerms
        /// The client speaks HTTP/1.1; an HTTP/1.0 client reads no chunked answer.
        let clientIsHTTP11: Bool
        /// An upstream connection is attached (the request's head was written on it).
        var connected = false
        /// Addresses whose connection could not be made for this request (positions in its balancer's addresses).
        var unreachable: [Int] = []
        /// Body parts read from the client before the upstream connection was ready.
        var bodyWaiting: [ByteBuffer] = []
        /// Body bytes read from the client so far, checked against `ForwardTerms.undeclaredBodyLimit`.
        var bodyBytesRead = 0
        /// The client's whole request has been read.
        var requestRead = false
        /// The whole request has been written to the upstream.
        var requestSent = false
        /// The answer, once its head was written to the client: from then on a failure can only close the connection.
        var answer: AnswerState?
        /// The upstream connection may serve another request after this answer.
        var upstreamKeepsAlive = true
        /// The request has been sent once more already.
        var retried = false
        /// Reading from the upstream is paused because the client is not taking the answer as fast.
        var upstreamPaused = false
        /// When the upstream's answer is late (504, or the connection closed once the answer began); nil once no
        /// upstream timeout applies.
        var deadline: NIODeadline?

        init(terms: ForwardTerms, clientIsHTTP11: Bool) {
            self.terms = terms
            self.clientIsHTTP11 = clientIsHTTP11
        }

        /// It may be sent again on a new connection: a safe request without a body whose connection closed before
        /// any answer (RFC 9110 section 9.2.2; a draining or restarting service closes kept-alive connections), once.
        var mayRetry: Bool { terms.isSafeToRetry && !terms.hasBody && !retried && answer == nil }
    }

    /// The answer an exchange passes on, from its head.
    struct AnswerState: Equatable {
        let status: HTTPResponse.Status
        let chunks: AnswerChunks
        /// A stream of Server-Sent Events (`text/event-stream`): it has no end of its own, so no upstream timeout
        /// applies once it started, and at shutdown it is ended (the client reconnects elsewhere).
        let isStream: Bool
        /// The upstream's whole answer has been read.
        var read = false
    }

    // MARK: - The request's parts

    /// Passes a body part or the end of the client's request to the upstream, or keeps it until connected.
    mutating func forward(_ part: HTTPServerRequestPart, now: @autoclosure () -> NIODeadline) throws(IllegalEvent) -> RequestPartAction {
        guard case .exchange(var exchange) = answering else { throw illegal("request \(part.kind) for an exchange") }
        switch part {
        case .head:
            throw illegal("request head before the end of the one read")
        case .body(let buffer):
            exchange.bodyBytesRead += buffer.readableBytes
            if let limit = exchange.terms.undeclaredBodyLimit, exchange.bodyBytesRead > limit {
                reading = .discard(read: 0, limit: Self.discardLimit)
                return .failExchange(fail(exchange, .bodyTooLarge(limit: limit)))
            }
            rearmDeadline(of: &exchange, now: now())
            if exchange.connected {
                answering = .exchange(exchange)
                return .sendBody(buffer, chunked: exchange.terms.bodyIsChunked, flushNow: flushesUpstreamNow)
            }
            exchange.bodyWaiting.append(buffer)
            answering = .exchange(exchange)
            return .keptUntilConnected(holdsReads: holdClientReads())
        case .end:
            exchange.requestRead = true
            // Without a body the request ended as it began: the deadline set then stands.
            if exchange.bodyBytesRead > 0 { rearmDeadline(of: &exchange, now: now()) }
            guard exchange.connected else {
                answering = .exchange(exchange)
                return .nothing
            }
            exchange.requestSent = true
            answering = .exchange(exchange)
            return .sendEnd(chunked: exchange.terms.bodyIsChunked, flushNow: flushesUpstreamNow)
        }
    }

    /// The upstream timeout starts again while the client is still sending the request (each part read, then its
    /// end), so a slow upload is not taken for a silent upstream: the upstream's time to answer counts from the
    /// request's end, and a client that stops sending mid-body is cut off after the same time without a byte.
    /// Nothing once the answer began. A check is scheduled whenever a deadline is set (`admitted`, `deadlineCheckFired`).
    private func rearmDeadline(of exchange: inout Exchange, now: NIODeadline) {
        guard exchange.deadline != nil, exchange.answer == nil else { return }
        exchange.deadline = now + upstreamTimeout
    }

    // MARK: - The upstream connection

    /// An upstream connection was attached: what to send on it now.
    mutating func connectionMade() throws(IllegalEvent) -> RequestSending {
        guard case .exchange(var exchange) = answering, !exchange.connected else { throw illegal("connectionMade") }
        exchange.connected = true
        let body = exchange.bodyWaiting
        exchange.bodyWaiting = []
        if exchange.requestRead { exchange.requestSent = true }
        answering = .exchange(exchange)
        return RequestSending(
            isHead: exchange.terms.isHead, decodesChunks: !exchange.clientIsHTTP11, body: body, chunked: exchange.terms.bodyIsChunked,
            sendsEnd: exchange.requestRead, flushNow: flushesUpstreamNow)
    }

    /// No connection could be made to the address at `addressIndex` of `addressCount`: another not tried yet, or the
    /// exchange fails with 503 when there is none. Nothing was sent on a connection that was never made: any method may
    /// go to another address, and the body read so far is still kept.
    mutating func connectFailed(addressIndex: Int, addressCount: Int) throws(IllegalEvent) -> UpstreamAttempt {
        guard case .exchange(var exchange) = answering, !exchange.connected else { throw illegal("connectFailed") }
        exchange.unreachable.append(addressIndex)
        guard exchange.unreachable.count < addressCount else { return .fail(fail(exchange, .unavailable)) }
        answering = .exchange(exchange)
        return .connect(excluding: exchange.unreachable)
    }

    /// No address is left to try, or the connection made cannot be used: 503.
    mutating func connectingFailed() throws(IllegalEvent) -> ExchangeEnding {
        guard case .exchange(let exchange) = answering, !exchange.connected else { throw illegal("connectingFailed") }
        return fail(exchange, .unavailable)
    }

    /// The upstream connection closed (or failed) while the exchange used it: a safe request is sent once more, else
    /// the exchange fails.
    mutating func upstreamClosed() throws(IllegalEvent) -> UpstreamAttempt {
        guard case .exchange(var exchange) = answering, exchange.connected else { throw illegal("upstreamClosed") }
        exchange.connected = false
        guard exchange.mayRetry else { return .fail(fail(exchange, .failed)) }
        exchange.retried = true
        exchange.requestSent = false
        answering = .exchange(exchange)
        return .connect(excluding: exchange.unreachable)
    }

    /// The upstream connection's write buffer is full: true when reads from the client were flowing and now wait.
    mutating func upstreamFull() -> Bool { holdClientReads() }

    /// The upstream connection takes writes again: true when a read is to be made now.
    mutating func upstreamWritable() -> Bool { releaseClientReads() }

    /// The client's connection's write buffer is full: true when reading from the upstream is to pause.
    mutating func clientFull() -> Bool {
        guard case .exchange(var exchange) = answering, exchange.connected, !exchange.upstreamPaused else { return false }
        exchange.upstreamPaused = true
        answering = .exchange(exchange)
        return true
    }

    /// The client's connection takes writes again: true when reading from the upstream is to resume.
    mutating func clientWritable() -> Bool {
        guard case .exchange(var exchange) = answering, exchange.connected, exchange.upstreamPaused else { return false }
        exchange.upstreamPaused = false
        answering = .exchange(exchange)
        return true
    }

    // MARK: - The upstream's answer

    /// The head of the upstream's answer.
    mutating func answerHeadRead(
        status: HTTPResponse.Status, keepAlive: Bool, framing: UpstreamAnswerHead.Framing, isEventStream: Bool
    ) throws(IllegalEvent) -> AnswerHeadAction {
        guard case .exchange(var exchange) = answering, exchange.connected, exchange.answer == nil else { throw illegal("answerHeadRead") }
        exchange.upstreamKeepsAlive = keepAlive
        if isEventStream { exchange.deadline = nil }
        var chunks = AnswerChunks.asSent
        if framing == .chunked { chunks = !exchange.clientIsHTTP11 ? .removed : isEventStream ? .again : .asSent }
        // An answer without a length ends when its connection closes, and so does one without its chunks: the client's
        // connection closes after it.
        if framing == .untilClose || chunks == .removed { closesAfterAnswer = true }
        let answer = AnswerState(status: status, chunks: chunks, isStream: isEventStream)
        exchange.answer = answer
        let connection: UpstreamAnswerHeaders.Connection? = closesAfterAnswer ? .close : exchange.clientIsHTTP11 ? nil : .keepAlive
        // A stream whose head came after the shutdown began would never end: it ends at once, as open ones did.
        let ending = isEventStream && quiescing ? endStream(&exchange, answer: answer) : nil
        if ending == nil { answering = .exchange(exchange) }
        return AnswerHeadAction(
            chunked: framing == .chunked && chunks != .removed, connection: connection, startsStream: isEventStream, streamEnding: ending)
    }

    /// A part of the answer's body: true when it goes in a chunk of the gateway's (`AnswerChunks.again`).
    func answerBodyRead() throws(IllegalEvent) -> Bool {
        guard case .exchange(let exchange) = answering, let answer = exchange.answer, !answer.read else { throw illegal("answerBodyRead") }
        return answer.chunks == .again
    }

    /// The answer's end: the exchange is over.
    mutating func answerEndRead() throws(IllegalEvent) -> ExchangeEnding {
        guard case .exchange(var exchange) = answering, var answer = exchange.answer, !answer.read else { throw illegal("answerEndRead") }
        answer.read = true
        exchange.answer = answer
        return finish(exchange, answer: .whole(answer.status, lastChunk: answer.chunks == .again), failed: false)
    }

    // MARK: - The deadline

    /// The scheduled check of the exchange's deadline fired at `now` (one per connection rather than a timer per
    /// request, whose scheduling and cancelling showed in the profile): the exchange times out when its deadline has
    /// passed, else the check is scheduled again at its deadline.
    mutating func deadlineCheckFired(now: NIODeadline) -> DeadlineAction {
        deadlineCheckScheduled = false
        guard case .exchange(var exchange) = answering, let deadline = exchange.deadline else { return .nothing }
        guard deadline > now else {
            exchange.deadline = nil
            return .timeOut(fail(exchange, .timedOut))
        }
        deadlineCheckScheduled = true
        return .check(at: deadline)
    }

    // MARK: - Ends

    /// Ends a stream of Server-Sent Events at shutdown: it has no end of its own, so it ends now, cleanly (after its
    /// last chunk when it is chunked), and the client reconnects to another gateway.
    mutating func endStream(_ exchange: inout Exchange, answer: AnswerState) -> ExchangeEnding {
        exchange.upstreamKeepsAlive = false
        return finish(exchange, answer: .whole(answer.status, lastChunk: answer.chunks == .again), failed: false)
    }

    /// Ends `exchange` after a failure: the one error shape when no answer was started, else the client's connection
    /// closes (its answer cannot be completed). Its upstream connection, if any, closes.
    mutating func fail(_ exchange: Exchange, _ failure: ExchangeFailure) -> ExchangeEnding {
        var exchange = exchange
        let closesUpstream = exchange.connected
        exchange.connected = false
        if let answer = exchange.answer {
            closesAfterAnswer = true
            return finish(exchange, answer: .cutOff(answer.status), failed: true, closesUpstream: closesUpstream)
        }
        if case .bodyTooLarge = failure { closesAfterAnswer = true }
        return finish(exchange, answer: .error(failure, closing: closesAfterAnswer), failed: true, closesUpstream: closesUpstream)
    }

    /// Ends `exchange`: its upstream connection goes back to the pool when it can serve another request, the rest of
    /// its request is dropped, and the client's next request goes on (or the connection closes).
    private mutating func finish(
        _ exchange: Exchange, answer: ExchangeEnding.Answer, failed: Bool, closesUpstream: Bool = false
    ) -> ExchangeEnding {
        var upstream = ExchangeEnding.Upstream.unattached
        if closesUpstream {
            upstream = .close
        } else if exchange.connected {
            let reusable = exchange.upstreamKeepsAlive && exchange.requestSent && exchange.answer?.read == true
            upstream = reusable ? .giveBack : .close
        }
        answering = .idle
        // An admitted body is bounded already: by its declared length, or by the route's limit while it is chunked.
        if reading == .exchange {
            reading = .discard(read: 0, limit: exchange.terms.undeclaredBodyLimit.map { $0 - exchange.bodyBytesRead } ?? .max)
        }
        return ExchangeEnding(
            answer: answer, failed: failed, wasStream: exchange.answer?.isStream == true, upstream: upstream,
            resumesUpstreamReads: exchange.upstreamPaused && upstream == .giveBack, readsClient: releaseClientReads(), closesClient: closesAfterAnswer
        )
    }
}
