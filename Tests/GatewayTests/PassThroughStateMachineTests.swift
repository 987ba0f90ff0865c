import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

@testable import Gateway

/// Every transition of the pass-through's state machine (`PassThroughStateMachine`), the illegal ones included: what
/// each event does in each state, from the outside (the actions it gives back and the events it then takes).
@Suite struct PassThroughStateMachineTests {
    typealias Machine = PassThroughStateMachine
    typealias Ending = PassThroughStateMachine.ExchangeEnding

    private let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
    private let timeout = TimeAmount.seconds(30)

    private func head(_ method: HTTPMethod = .GET, _ version: HTTPVersion = .http1_1, _ fields: [(String, String)] = []) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: version, method: method, uri: "/api/meals", headers: HTTPHeaders(fields)))
    }

    private func body(_ count: Int) -> HTTPServerRequestPart { .body(ByteBuffer(repeating: 7, count: count)) }
    private let end = HTTPServerRequestPart.end(nil)

    /// A connection that read `part` (a head) and got its admission to decide: the request's number.
    private func admitting(_ machine: inout Machine, _ part: HTTPServerRequestPart? = nil) throws -> Int {
        let action = try machine.requestPartRead(part ?? head(), now: t0)
        guard case .admit(_, let number) = action else {
            Issue.record("a head read while nothing is answered is admitted, not \(action)")
            return -1
        }
        return number
    }

    /// A connection forwarding a request of `terms` (read within one read from the socket, which ended).
    private func forwarding(_ terms: Machine.ForwardTerms = .init(isSafeToRetry: true), head part: HTTPServerRequestPart? = nil) throws -> Machine {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine, part)
        _ = machine.admitted(.forward(terms), number: number, now: t0)
        _ = machine.clientReadEnded()
        return machine
    }

    /// A forwarding connection whose upstream connection is made and whose request was read whole.
    private func sent(_ terms: Machine.ForwardTerms = .init(isSafeToRetry: true), head part: HTTPServerRequestPart? = nil) throws -> Machine {
        var machine = try forwarding(terms, head: part)
        _ = try machine.connectionMade()
        #expect(try machine.requestPartRead(end, now: t0) == .sendEnd(chunked: false, flushNow: false))
        _ = machine.clientReadEnded()
        return machine
    }

    private func answered(
        _ machine: inout Machine, _ status: HTTPResponse.Status = .ok, framing: UpstreamAnswerHead.Framing = .length(2), stream: Bool = false
    )
        throws -> Machine.AnswerHeadAction
    {
        try machine.answerHeadRead(status: status, keepAlive: true, framing: framing, isEventStream: stream)
    }

    private func ending(
        _ answer: Ending.Answer, failed: Bool = false, wasStream: Bool = false, upstream: Ending.Upstream = .giveBack, readsClient: Bool = false,
        closesClient: Bool = false
    ) -> Ending {
        Ending(
            answer: answer, failed: failed, wasStream: wasStream, upstream: upstream, resumesUpstreamReads: false, readsClient: readsClient,
            closesClient: closesClient)
    }

    // MARK: - Reading requests

    @Test("a head read while nothing is answered is admitted, numbered; a body part or an end with no head is an illegal event")
    func headIsAdmitted() throws {
        var machine = Machine(upstreamTimeout: timeout)
        #expect(throws: Machine.IllegalEvent.self) { try machine.requestPartRead(body(3), now: t0) }
        #expect(throws: Machine.IllegalEvent.self) { try machine.requestPartRead(end, now: t0) }
        let action = try machine.requestPartRead(head(.POST), now: t0)
        guard case .admit(let admitted, 1) = action else {
            Issue.record("expected the head admitted as request 1, got \(action)")
            return
        }
        #expect(admitted.method == .POST)
    }

    @Test("a head the handler cannot read goes to the router with the rest of its request; the event is illegal when nothing is admitted")
    func unreadableHead() throws {
        var machine = Machine(upstreamTimeout: timeout)
        #expect(throws: Machine.IllegalEvent.self) { try machine.requestHeadUnreadable() }
        _ = try admitting(&machine)
        try machine.requestHeadUnreadable()
        #expect(try machine.requestPartRead(body(2), now: t0) == .passToRouter(body(2)))
        #expect(try machine.requestPartRead(end, now: t0) == .passToRouter(end))
        #expect(machine.reading == .idle)
    }

    @Test("a decision for a request no longer admitted is ignored: a late one after the client went away, or a wrong number")
    func lateDecisionIgnored() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine)
        #expect(machine.admitted(.preflight, number: number + 1, now: t0) == .ignore)
        try machine.admissionWaits(number: number)
        #expect(throws: Machine.IllegalEvent.self) { try machine.admissionWaits(number: number + 1) }
        #expect(machine.clientGone() == nil, "nothing was forwarded: nothing to record")
        #expect(machine.admitted(.forward(.init()), number: number, now: t0) == .ignore)
    }

    // MARK: - The router

    @Test(
        "a request the router answers: its parts go to the router, it is told of the read's end, its answer gets the decided headers (not an interim one)"
    )
    func routerAnswers() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine, head(.PUT))
        let headers: HTTPFields = [.init("RateLimit")!: "limit=10"]
        #expect(
            machine.admitted(.router(answerHeaders: headers, expectsContinue: true), number: number, now: t0)
                == .delegate(writesContinue: true, quiescesRouter: false))
        #expect(try machine.requestPartRead(body(4), now: t0) == .passToRouter(body(4)))
        #expect(try machine.requestPartRead(end, now: t0) == .passToRouter(end))
        #expect(machine.clientReadEnded() == true, "the router got parts in this read")
        #expect(machine.clientReadEnded() == false)
        #expect(machine.routerAnswerHeadWritten(informational: true) == nil)
        #expect(machine.routerAnswerHeadWritten(informational: false) == headers)
        #expect(machine.routerAnswerEnded() == true)
        #expect(machine.routerAnswerEnded() == false, "a second end is the router's own answer (its codec's error), not one it was given")
        #expect(machine.routerAnswerHeadWritten(informational: false) == nil)
    }

    @Test("a head read while the router is reading a request's body is an illegal event")
    func headInsideRouterRequest() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine)
        _ = machine.admitted(.router(answerHeaders: [:], expectsContinue: false), number: number, now: t0)
        #expect(throws: Machine.IllegalEvent.self) { try machine.requestPartRead(head(), now: t0) }
    }

    @Test("requests read while another is answered (pipelining) wait in order and go on when its answer ended")
    func pipelinedRequestsWait() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let first = try admitting(&machine)
        _ = machine.admitted(.router(answerHeaders: [:], expectsContinue: false), number: first, now: t0)
        #expect(try machine.requestPartRead(end, now: t0) == .passToRouter(end))
        #expect(try machine.requestPartRead(head(.POST), now: t0) == .nothing, "held")
        #expect(try machine.requestPartRead(body(5), now: t0) == .nothing, "held")
        #expect(try machine.requestPartRead(end, now: t0) == .nothing, "held")
        #expect(try machine.nextHeldPart(now: t0) == nil, "the first is still answered")
        _ = machine.clientReadEnded()
        #expect(machine.routerAnswerEnded() == true)
        guard case .admit(let held, let second) = try machine.nextHeldPart(now: t0) else {
            Issue.record("the held head is admitted next")
            return
        }
        #expect(held.method == .POST && second == first + 1)
        #expect(try machine.nextHeldPart(now: t0) == nil, "its body waits for its decision")
        _ = machine.admitted(.router(answerHeaders: [:], expectsContinue: false), number: second, now: t0)
        #expect(try machine.nextHeldPart(now: t0) == .passToRouter(body(5)))
        #expect(try machine.nextHeldPart(now: t0) == .passToRouter(end))
        #expect(try machine.nextHeldPart(now: t0) == nil)
        #expect(machine.heldPartsTaken() == true, "the router got parts outside a read: it is told of a read's end")
        #expect(machine.heldPartsTaken() == false)
    }

    // MARK: - Refusals

    @Test("a preflight is answered and its body dropped; the end of the dropped body lets held requests go on")
    func preflight() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine, head(.OPTIONS))
        #expect(machine.admitted(.preflight, number: number, now: t0) == .answerPreflight(closing: false))
        #expect(try machine.requestPartRead(body(10), now: t0) == .nothing)
        #expect(throws: Machine.IllegalEvent.self) { try machine.requestPartRead(head(), now: t0) }
        #expect(try machine.requestPartRead(end, now: t0) == .takeHeldParts)
        #expect(machine.reading == .idle)
    }

    @Test("a refused request's body is dropped up to its declared length or 1 MiB; past that the connection closes")
    func refusalDropsBody() throws {
        var machine = Machine(upstreamTimeout: timeout)
        var number = try admitting(&machine)
        #expect(machine.admitted(.refuse(closesConnection: false, declaredLength: 3 << 20), number: number, now: t0) == .refuse(closing: false))
        #expect(try machine.requestPartRead(body(3 << 20), now: t0) == .nothing, "all of a declared body is read")
        #expect(try machine.requestPartRead(end, now: t0) == .takeHeldParts)

        number = try admitting(&machine)
        _ = machine.admitted(.refuse(closesConnection: false, declaredLength: nil), number: number, now: t0)
        #expect(try machine.requestPartRead(body(Machine.discardLimit), now: t0) == .nothing)
        #expect(try machine.requestPartRead(body(1), now: t0) == .closeClient)
    }

    @Test(
        "the connection closes after a refusal that says so, after any answer when the client asked (Connection: close, HTTP/1.0 without keep-alive)")
    func refusalClosing() throws {
        var machine = Machine(upstreamTimeout: timeout)
        var number = try admitting(&machine)
        #expect(machine.admitted(.refuse(closesConnection: true, declaredLength: nil), number: number, now: t0) == .refuse(closing: true))

        for asked in [head(.GET, .http1_1, [("Connection", "close")]), head(.GET, .http1_0)] {
            machine = Machine(upstreamTimeout: timeout)
            number = try admitting(&machine, asked)
            #expect(machine.admitted(.refuse(closesConnection: false, declaredLength: nil), number: number, now: t0) == .refuse(closing: true))
        }
        machine = Machine(upstreamTimeout: timeout)
        number = try admitting(&machine, head(.GET, .http1_0, [("Connection", "keep-alive")]))
        #expect(machine.admitted(.preflight, number: number, now: t0) == .answerPreflight(closing: false))
    }

    // MARK: - Admission waits and client reads

    @Test(
        "a waiting admission holds reads (the pipeline's read is made on release) and the request's parts; a forward keeps them held until connected")
    func waitingAdmission() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine, head(.POST))
        try machine.admissionWaits(number: number)
        #expect(machine.clientReads == .held(pending: false))
        #expect(try machine.requestPartRead(body(4), now: t0) == .nothing)
        #expect(try machine.requestPartRead(end, now: t0) == .nothing)
        #expect(machine.readRequested() == false, "held")
        _ = machine.clientReadEnded()
        let terms = Machine.ForwardTerms(hasBody: true)
        #expect(machine.admitted(.forward(terms), number: number, now: t0) == .forward(writesContinue: false, schedulesDeadlineCheck: t0 + timeout))
        #expect(machine.waitedAdmissionApplied() == false, "reads wait for the upstream connection")
        #expect(try machine.nextHeldPart(now: t0) == .keptUntilConnected(holdsReads: false), "already held: not a body hold")
        #expect(try machine.nextHeldPart(now: t0) == .nothing)
        #expect(try machine.nextHeldPart(now: t0) == nil)
        #expect(
            try machine.connectionMade()
                == .init(
                    isHead: false, decodesChunks: false, body: [ByteBuffer(repeating: 7, count: 4)], chunked: false, sendsEnd: true, flushNow: true))
        #expect(machine.upstreamWritable() == true, "the read asked for meanwhile is made")
        #expect(machine.readRequested() == true)
    }

    @Test("after a waited admission the router's request lets reads go on, with the read asked for meanwhile")
    func waitedRouterAdmission() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine)
        try machine.admissionWaits(number: number)
        #expect(machine.readRequested() == false)
        _ = machine.admitted(.router(answerHeaders: [:], expectsContinue: false), number: number, now: t0)
        #expect(machine.waitedAdmissionApplied() == true)
        #expect(machine.waitedAdmissionApplied() == false, "released once")
    }

    @Test("a shutdown during an admission is held until its decision, then the router is told of it; the connection closes after the answer")
    func quiesceWhileAdmitting() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine)
        #expect(machine.quiesceRequested() == .held)
        #expect(
            machine.admitted(.router(answerHeaders: [:], expectsContinue: false), number: number, now: t0)
                == .delegate(writesContinue: false, quiescesRouter: true))
        #expect(machine.quiesceRequested() == .passOn, "the router handles a shutdown of its own answers")
        var idle = Machine(upstreamTimeout: timeout)
        #expect(idle.quiesceRequested() == .passOn, "nothing answered")
    }

    // MARK: - Exchanges

    @Test("an exchange: connected, its end sent within the read, answered and ended; its connection goes back to the pool")
    func wholeExchange() throws {
        var machine = try forwarding(.init(isHead: true, isSafeToRetry: true))
        let sending = try machine.connectionMade()
        #expect(sending == .init(isHead: true, decodesChunks: false, body: [], chunked: false, sendsEnd: false, flushNow: true))
        #expect(throws: Machine.IllegalEvent.self) { try machine.connectionMade() }
        #expect(try machine.requestPartRead(end, now: t0) == .sendEnd(chunked: false, flushNow: false), "flushed at the read's end")
        #expect(throws: Machine.IllegalEvent.self) { try machine.answerBodyRead() }
        #expect(throws: Machine.IllegalEvent.self) { try machine.answerEndRead() }
        #expect(try answered(&machine) == .init(chunked: false, connection: nil, startsStream: false, streamEnding: nil))
        #expect(throws: Machine.IllegalEvent.self) { try answered(&machine) }
        #expect(try machine.answerBodyRead() == false)
        #expect(try machine.answerEndRead() == ending(.whole(.ok, lastChunk: false)))
        #expect(throws: Machine.IllegalEvent.self) { try machine.answerEndRead() }
        #expect(!machine.isAnswering && machine.reading == .idle)
    }

    @Test("an answer that ends before its request was read: the upstream connection closes and the rest of the body is dropped, all of it")
    func earlyAnswer() throws {
        var machine = try forwarding(.init(hasBody: true, undeclaredBodyLimit: 100))
        _ = try machine.connectionMade()
        #expect(try machine.requestPartRead(body(30), now: t0) == .sendBody(ByteBuffer(repeating: 7, count: 30), chunked: true, flushNow: false))
        _ = try answered(&machine, .contentTooLarge)
        #expect(try machine.answerEndRead() == ending(.whole(.contentTooLarge, lastChunk: false), upstream: .close))
        #expect(machine.reading == .discard(read: 0, limit: 70), "the route's limit less what was read")
    }

    @Test("a chunked body past its route's limit fails the exchange with 413 and closes the connection")
    func chunkedBodyTooLarge() throws {
        var machine = try forwarding(.init(hasBody: true, undeclaredBodyLimit: 10))
        _ = try machine.connectionMade()
        _ = try machine.requestPartRead(body(10), now: t0)
        #expect(
            try machine.requestPartRead(body(1), now: t0)
                == .failExchange(ending(.error(.bodyTooLarge(limit: 10), closing: true), failed: true, upstream: .close, closesClient: true)))
        #expect(machine.reading == .discard(read: 0, limit: Machine.discardLimit))
    }

    @Test("body parts read before the connection is made are kept and hold reads (one body hold), then sent with the head")
    func bodyKeptUntilConnected() throws {
        var machine = try forwarding(.init(hasBody: true, undeclaredBodyLimit: 100))
        #expect(try machine.requestPartRead(body(2), now: t0) == .keptUntilConnected(holdsReads: true))
        #expect(try machine.requestPartRead(body(3), now: t0) == .keptUntilConnected(holdsReads: false))
        #expect(try machine.requestPartRead(end, now: t0) == .nothing)
        let sending = try machine.connectionMade()
        #expect(sending.body.map(\.readableBytes) == [2, 3] && sending.chunked && sending.sendsEnd && !sending.flushNow)
    }

    @Test("the upstream's full write buffer holds client reads; the pipeline's read waits and is made when it drains")
    func upstreamBackPressure() throws {
        var machine = try forwarding(.init(hasBody: true))
        _ = try machine.connectionMade()
        #expect(machine.upstreamFull() == true)
        #expect(machine.upstreamFull() == false, "already held")
        #expect(machine.readRequested() == false)
        #expect(machine.upstreamWritable() == true)
        #expect(machine.upstreamWritable() == false)
        #expect(machine.readRequested() == true)
    }

    @Test("the client's full write buffer pauses reading from the upstream until it drains; a paused connection resumes before it goes back")
    func clientBackPressure() throws {
        var machine = try forwarding()
        #expect(machine.clientFull() == false, "no upstream connection yet")
        _ = try machine.connectionMade()
        _ = try machine.requestPartRead(end, now: t0)
        _ = try answered(&machine)
        #expect(machine.clientFull() == true)
        #expect(machine.clientFull() == false)
        #expect(machine.clientWritable() == true)
        #expect(machine.clientWritable() == false)
        #expect(machine.clientFull() == true)
        var expected = ending(.whole(.ok, lastChunk: false))
        expected.resumesUpstreamReads = true
        #expect(try machine.answerEndRead() == expected)
    }

    @Test("an address that cannot be connected to is excluded and another tried; when none is left the exchange fails with 503")
    func connectFailures() throws {
        var machine = try forwarding(.init(hasBody: true))
        #expect(try machine.connectFailed(addressIndex: 0, addressCount: 3) == .connect(excluding: [0]))
        #expect(try machine.connectFailed(addressIndex: 2, addressCount: 3) == .connect(excluding: [0, 2]))
        #expect(
            try machine.connectFailed(addressIndex: 1, addressCount: 3)
                == .fail(ending(.error(.unavailable, closing: false), failed: true, upstream: .unattached)))
        #expect(throws: Machine.IllegalEvent.self) { try machine.connectFailed(addressIndex: 1, addressCount: 3) }

        machine = try forwarding()
        #expect(try machine.connectingFailed() == ending(.error(.unavailable, closing: false), failed: true, upstream: .unattached))
        machine = try forwarding()
        _ = try machine.connectionMade()
        #expect(throws: Machine.IllegalEvent.self) { try machine.connectFailed(addressIndex: 0, addressCount: 2) }
        #expect(throws: Machine.IllegalEvent.self) { try machine.connectingFailed() }
    }

    @Test("a safe request without a body whose connection closed before answering is sent once more; a write, or a second close, fails with 502")
    func upstreamCloses() throws {
        var machine = try sent()
        #expect(try machine.upstreamClosed() == .connect(excluding: []))
        #expect(throws: Machine.IllegalEvent.self) { try machine.upstreamClosed() }
        #expect(try machine.connectionMade().sendsEnd == true, "the request is sent whole again")
        #expect(try machine.upstreamClosed() == .fail(ending(.error(.failed, closing: false), failed: true, upstream: .unattached)))

        machine = try sent(.init(isSafeToRetry: false))
        #expect(try machine.upstreamClosed() == .fail(ending(.error(.failed, closing: false), failed: true, upstream: .unattached)))
        machine = try sent(.init(isSafeToRetry: true, hasBody: true))
        #expect(try machine.upstreamClosed() == .fail(ending(.error(.failed, closing: false), failed: true, upstream: .unattached)))
    }

    @Test("a connection that closes after the answer began cuts the answer off: the client's connection closes")
    func answerCutOff() throws {
        var machine = try sent()
        _ = try answered(&machine)
        #expect(try machine.upstreamClosed() == .fail(ending(.cutOff(.ok), failed: true, upstream: .unattached, closesClient: true)))
    }

    @Test(
        "the deadline: a check before it is scheduled again at it, a body part moves it, one after it times out with 504, none once answered as a stream"
    )
    func deadline() throws {
        var machine = try forwarding(.init(hasBody: true))
        _ = try machine.connectionMade()
        #expect(machine.deadlineCheckFired(now: t0 + .seconds(10)) == .check(at: t0 + timeout))
        _ = try machine.requestPartRead(body(1), now: t0 + .seconds(20))
        #expect(machine.deadlineCheckFired(now: t0 + timeout) == .check(at: t0 + .seconds(20) + timeout))
        #expect(
            machine.deadlineCheckFired(now: t0 + .seconds(20) + timeout)
                == .timeOut(ending(.error(.timedOut, closing: false), failed: true, upstream: .close)))
        #expect(machine.deadlineCheckFired(now: t0 + .seconds(100)) == .nothing, "nothing left to time out")

        machine = try sent()
        _ = try answered(&machine, framing: .chunked, stream: true)
        #expect(machine.deadlineCheckFired(now: t0 + .seconds(100)) == .nothing, "a stream has no deadline")
    }

    @Test("one deadline check per connection: the next exchange does not schedule another while one is scheduled")
    func oneDeadlineCheck() throws {
        var machine = try sent()
        _ = try answered(&machine)
        _ = try machine.answerEndRead()
        let number = try admitting(&machine)
        #expect(
            machine.admitted(.forward(.init()), number: number, now: t0 + .seconds(5)) == .forward(writesContinue: false, schedulesDeadlineCheck: nil)
        )
        #expect(machine.deadlineCheckFired(now: t0 + timeout) == .check(at: t0 + .seconds(5) + timeout))
    }

    @Test("an HTTP/1.0 client gets a chunked answer without its chunks and the connection closes after it; so does any answer without a length")
    func answerFramingForClient() throws {
        var machine = try sent(head: head(.GET, .http1_0, [("Connection", "keep-alive")]))
        #expect(try answered(&machine, framing: .chunked) == .init(chunked: false, connection: .close, startsStream: false, streamEnding: nil))
        #expect(try machine.answerEndRead().closesClient == true)

        machine = try sent(head: head(.GET, .http1_0, [("Connection", "keep-alive")]))
        #expect(try answered(&machine) == .init(chunked: false, connection: .keepAlive, startsStream: false, streamEnding: nil))

        machine = try sent()
        #expect(try answered(&machine, framing: .untilClose) == .init(chunked: false, connection: .close, startsStream: false, streamEnding: nil))
        machine = try sent()
        #expect(try answered(&machine, framing: .chunked) == .init(chunked: true, connection: nil, startsStream: false, streamEnding: nil))
    }

    @Test(
        "a stream of events goes in the gateway's chunks; a shutdown ends it at once with its last chunk, and one whose head comes during shutdown ends so too"
    )
    func streamsAtShutdown() throws {
        var machine = try sent()
        _ = try answered(&machine, framing: .chunked, stream: true)
        #expect(try machine.answerBodyRead() == true)
        let streamEnding = ending(.whole(.ok, lastChunk: true), wasStream: true, upstream: .close, closesClient: true)
        #expect(machine.quiesceRequested() == .endStream(streamEnding))

        machine = try sent()
        #expect(machine.quiesceRequested() == .held)
        #expect(try answered(&machine, framing: .chunked, stream: true).streamEnding == streamEnding)

        machine = try sent()
        _ = try answered(&machine, framing: .chunked)
        #expect(machine.quiesceRequested() == .held, "an answer with an end of its own ends as it does")
        #expect(try machine.answerEndRead() == ending(.whole(.ok, lastChunk: false), closesClient: true))
    }

    @Test("a close asked for by the pipeline waits for the exchange in progress (but closing the input); it closes at once otherwise")
    func closeRequests() throws {
        var machine = Machine(upstreamTimeout: timeout)
        #expect(machine.closeRequested(inputOnly: false) == true)
        machine = try sent()
        #expect(machine.closeRequested(inputOnly: true) == true)
        #expect(machine.closeRequested(inputOnly: false) == false)
        _ = try answered(&machine)
        #expect(try machine.answerEndRead().closesClient == true)
    }

    @Test("the client gone: the exchange is recorded with 499 before any answer, with its status after, as a failure unless it was a stream")
    func clientGone() throws {
        var machine = try forwarding()
        #expect(machine.clientGone() == .init(status: Machine.clientClosedRequest, failed: true, wasStream: false, closesUpstream: false))
        #expect(machine.clientGone() == nil, "once")

        machine = try sent()
        _ = try answered(&machine, framing: .chunked, stream: true)
        #expect(machine.clientGone() == .init(status: .ok, failed: false, wasStream: true, closesUpstream: true))
        #expect(throws: Machine.IllegalEvent.self) { try machine.answerBodyRead() }

        machine = try sent()
        _ = try answered(&machine)
        #expect(machine.clientGone() == .init(status: .ok, failed: true, wasStream: false, closesUpstream: true))
    }

    @Test("parts decoded after the client's connection went away (the rest of the read it closed in) are dropped, whatever they are")
    func partsAfterClientGone() throws {
        var machine = Machine(upstreamTimeout: timeout)
        let number = try admitting(&machine, head(.POST))
        #expect(machine.admitted(.refuse(closesConnection: true, declaredLength: 10), number: number, now: t0) == .refuse(closing: true))
        #expect(machine.clientGone() == nil)
        for part in [body(10), end, head(), end] { #expect(try machine.requestPartRead(part, now: t0) == .nothing) }
        #expect(try machine.nextHeldPart(now: t0) == nil)
    }

    @Test("an exchange's end makes the read asked for while reads were held, and held requests go on after it")
    func endingReleasesReads() throws {
        var machine = try forwarding(.init(hasBody: true))
        _ = try machine.requestPartRead(body(1), now: t0)
        #expect(machine.readRequested() == false)
        #expect(try machine.requestPartRead(end, now: t0) == .nothing)
        #expect(try machine.requestPartRead(head(), now: t0) == .nothing, "the next request is held")
        #expect(
            try machine.connectFailed(addressIndex: 0, addressCount: 1)
                == .fail(ending(.error(.unavailable, closing: false), failed: true, upstream: .unattached, readsClient: true)))
        guard case .admit = try machine.nextHeldPart(now: t0) else {
            Issue.record("the held request is admitted after the exchange ended")
            return
        }
    }

    @Test("events of the upstream side with no exchange are illegal; a deadline check or a writability change is not")
    func upstreamEventsWithoutExchange() throws {
        var machine = Machine(upstreamTimeout: timeout)
        #expect(throws: Machine.IllegalEvent.self) { try machine.connectionMade() }
        #expect(throws: Machine.IllegalEvent.self) { try machine.upstreamClosed() }
        #expect(throws: Machine.IllegalEvent.self) { try machine.answerHeadRead(status: .ok, keepAlive: true, framing: .none, isEventStream: false) }
        #expect(throws: Machine.IllegalEvent.self) { try machine.forward(body(1), now: t0) }
        #expect(machine.deadlineCheckFired(now: t0) == .nothing)
        #expect(machine.clientWritable() == false)
        #expect(machine.clientFull() == false)
        var forwarding = try forwarding()
        #expect(throws: Machine.IllegalEvent.self) {
            try forwarding.answerHeadRead(status: .ok, keepAlive: true, framing: .none, isEventStream: false)
        }
        #expect(throws: Machine.IllegalEvent.self) { try forwarding.requestPartRead(head(), now: t0) }
    }
}
