import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import ServiceDefaults

/// The gateway's one forwarding path: a channel handler in each client connection, between the HTTP codec and the
/// router, that admits every request (`PassThroughAdmission`: CORS, the route table, body limits, CSRF, the token and
/// the rate limit) and forwards each proxied one to its upstream itself, on the connection's event loop, through a
/// kept-alive upstream connection of that loop (`UpstreamConnectionPool`), streaming both bodies at their reader's
/// pace, with no task, no request or response object and no log line per request unless asked for (`AccessLog`).
/// Upstream connections carry bytes: the request is written as HTTP/1.1 (`UpstreamRequestBytes`), the answer read by
/// the connection's parser (`UpstreamAnswerParser`) and passed on as it came, its head with only the gateway's edits
/// (`UpstreamAnswerHeaders`) and its body as read, past the client connection's HTTP/1 encoder. An
/// admission that must wait (a token's first verification, a limit only the shared rate-limit store decides) suspends
/// only its request: its parts are held until the decision comes back to the event loop.
/// The router gets only the gateway's own routes (health, the API document) and the routes it composes (sync,
/// export), admitted here like any other; its answers get the headers the admission decided (rate limit, CORS).
/// Answers made here have the router's shape: the upstream's answer with `X-Request-Id`, the rate-limit and CORS
/// headers; refusals and 502, 503 or 504 in the one error shape (`UpstreamClient` maps them the same); the same
/// request metrics (`RequestMetricsRecorder`) and, while tracing is on, the same spans (`PassThroughTracing`).
/// Each attempt's address comes from the upstream's balancer (`UpstreamBalancer`); one that cannot be connected to is
/// ejected and the request goes to another address, each at most once, whatever its method: nothing of it was sent,
/// and its body is still held here (reads from the client wait until a connection is made). A safe request without
/// a body is sent once more when a kept-alive upstream connection closed before answering; writes never are.
/// Requests on one connection are answered in order: a request read while another is answered (pipelining) waits.
/// At shutdown a connection closes after the answer in progress (the router's quiesce is held until then); a stream
/// of Server-Sent Events, which has no end of its own, is ended at once.
///
/// Every decision above is the state machine's (`PassThroughStateMachine`): this handler carries out its actions,
/// which are all the I/O, and holds what they act on (the connection's contexts, the exchange's upstream connection,
/// lease and spans, the scheduled deadline check).
final class PassThroughHandler: ChannelDuplexHandler, RemovableChannelHandler, UpstreamExchangeDelegate {
    /// NIO's HTTP/1 request parts, as its decoder read them: a proxied request's body goes on as it came, and only
    /// what the router gets is converted to HTTPTypes (`GatewayHTTP1Codec`).
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    /// The router's answers, in HTTPTypes; what goes to the client through the encoder is NIO's HTTP/1 parts (the
    /// router's answers and the gateway's own); an upstream's answer goes as bytes (`answerBytesOutput`).
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let admission: PassThroughAdmission
    private let pools: UpstreamConnectionPools
    private let metrics: RequestMetricsRecorder
    private let counters: PassThroughCounters
    private let tracing: PassThroughTracing?
    /// The level of the line each completed request logs (`AccessLog`).
    private let accessLogLevel = AccessLog.level
    /// `Server` of every answer, as the router's answers say it.
    private let serverName: String?
    /// How an upstream's answer headers reach the client.
    private let upstreamAnswerHeaders: UpstreamAnswerHeaders
    private let logger: Logger

    private var state: PassThroughStateMachine
    private var context: ChannelHandlerContext?
    /// The context of the connection's HTTP/1 response encoder: an upstream's answer is written from there, as the
    /// bytes it is (`UpstreamAnswerHeaders`, then its body as read), past the encoder, which only the router's answers
    /// and the gateway's own need.
    private var answerBytesOutput: ChannelHandlerContext?
    private var pool: UpstreamConnectionPool?
    private var peer: String?
    /// The bearer token this connection sent last, and its caller.
    private var recentBearer: RecentBearer?
    /// What the exchange in progress holds, while there is one.
    private var exchange: PassThroughExchange?
    /// The scheduled check of the exchange's deadline (`PassThroughStateMachine.deadlineCheckFired`), while one is.
    private var deadlineCheck: Scheduled<Void>?
    /// An upstream connection written to during the client's read: flushed once at the read's end, so a request's
    /// head and end go out in one write.
    private var upstreamToFlush: (any Channel)?
    /// Ids of this connection's spans, while tracing is on (seeded at its first span).
    private lazy var traceIds = TraceIdentifierGenerator()

    init(
        admission: PassThroughAdmission, pools: UpstreamConnectionPools, metrics: RequestMetricsRecorder, counters: PassThroughCounters,
        upstreamTimeout: Duration, serverName: String?, tracing: PassThroughTracing?, logger: Logger
    ) {
        self.admission = admission
        self.tracing = tracing
        self.pools = pools
        self.metrics = metrics
        self.counters = counters
        self.state = PassThroughStateMachine(upstreamTimeout: .init(upstreamTimeout))
        self.serverName = serverName
        self.upstreamAnswerHeaders = UpstreamAnswerHeaders(serverName: serverName)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.answerBytesOutput = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        assert(answerBytesOutput != nil, "the pass-through runs behind NIO's HTTP/1 response encoder (GatewayHTTP1Channel)")
        self.pool = pools.pool(for: context.eventLoop)
        self.peer = context.channel.remoteAddress?.ipAddress
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadlineCheck?.cancel()
        deadlineCheck = nil
        abandonExchange()
        self.context = nil
        self.answerBytesOutput = nil
    }

    /// An event the state machine says cannot happen in the connection's state: a defect, logged, and the connection
    /// closed rather than left in a state nobody planned.
    private func closeOnIllegal(_ error: PassThroughStateMachine.IllegalEvent) {
        logger.error("closing a client connection on an event its state cannot take", metadata: ["event": "\(error)"])
        context?.close(promise: nil)
    }

    // MARK: - Client side

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        do {
            perform(try state.requestPartRead(part, now: .now()), context: context)
        } catch {
            closeOnIllegal(error)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        let tellsRouter = state.clientReadEnded()
        if let channel = upstreamToFlush {
            upstreamToFlush = nil
            channel.flush()
        }
        if tellsRouter { context.fireChannelReadComplete() }
    }

    func read(context: ChannelHandlerContext) {
        if state.readRequested() { context.read() }
    }

    /// Carries out what the state machine decided for a part read from the client.
    private func perform(_ action: PassThroughStateMachine.RequestPartAction, context: ChannelHandlerContext) {
        switch action {
        case .nothing:
            break
        case .admit(let head, let number):
            do {
                let request = try GatewayHTTP1Codec.request(head)
                begin(request, number: number, context: context)
            } catch {
                // The router ends the connection on it, as on any error its codec reports.
                context.fireErrorCaught(error)
                do { try state.requestHeadUnreadable() } catch { closeOnIllegal(error) }
            }
        case .passToRouter(let part):
            passToRouter(part, context: context)
        case .sendBody(let buffer, let chunked, let flushNow):
            guard let channel = exchange?.connection?.channel else { return }
            if let bytes = UpstreamRequestBytes.body(buffer, chunked: chunked, allocator: channel.allocator) { channel.write(bytes, promise: nil) }
            flush(channel, now: flushNow)
            if !channel.isWritable, state.upstreamFull() { counters.bodyHolds.increment() }
        case .sendEnd(let chunked, let flushNow):
            guard let channel = exchange?.connection?.channel else { return }
            if chunked { channel.write(ChunkedBytes.last(allocator: channel.allocator), promise: nil) }
            flush(channel, now: flushNow)
        case .keptUntilConnected(let holdsReads):
            if holdsReads { counters.bodyHolds.increment() }
        case .failExchange(let ending):
            carryOut(ending)
        case .closeClient:
            context.close(promise: nil)
        case .takeHeldParts:
            takeHeldParts(context: context)
        }
    }

    /// Flushes `channel` now, or at the end of the client's read in progress.
    private func flush(_ channel: any Channel, now: Bool) {
        guard !now else {
            channel.flush()
            return
        }
        if let pending = upstreamToFlush, pending !== channel { pending.flush() }
        upstreamToFlush = channel
    }

    /// Gives `part` to the router.
    private func passToRouter(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head:
            assertionFailure("a head is admitted (PassThroughStateMachine.RequestPartAction.admit), never passed on as read")
        case .body(let buffer):
            context.fireChannelRead(wrapInboundOut(.body(buffer)))
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers.map { GatewayHTTP1Codec.fields($0, skippingHost: false) })))
        }
    }

    /// Takes the requests read while another was answered, as far as the state machine lets them go on. Parts given
    /// to the router outside a read from the socket are followed by a read's end for it (its inbound stream delivers
    /// on that).
    private func takeHeldParts(context: ChannelHandlerContext) {
        do {
            while let action = try state.nextHeldPart(now: .now()) { perform(action, context: context) }
        } catch {
            closeOnIllegal(error)
            return
        }
        if state.heldPartsTaken() { context.fireChannelReadComplete() }
    }

    // MARK: - Admission

    /// Admits request `number` and starts it, or waits for its admission.
    private func begin(_ request: HTTPRequest, number: Int, context: ChannelHandlerContext) {
        let started = ContinuousClock.now
        let requestId = RequestIdMiddleware<GatewayRequestContext>.acceptable(request.headerFields.value(of: .requestId)) ?? RandomRequestId.make()
        switch admission.begin(request, peer: peer, requestId: requestId, recent: &recentBearer) {
        case .decided(let decision):
            apply(decision, number: number, to: request, requestId: requestId, started: started, context: context)
        case .waiting(let pending):
            counters.admissionWaits.increment()
            do { try state.admissionWaits(number: number) } catch {
                closeOnIllegal(error)
                return
            }
            let decided = context.eventLoop.makePromise(of: PassThroughDecision.self)
            decided.completeWithTask { [admission] in await admission.finish(pending) }
            // Captured strongly, as below: a weak reference would give the handler a side table, and every retain of it
            // the slow path; the future always completes, and a decision for a closed connection is ignored.
            decided.futureResult.assumeIsolated().whenSuccess { decision in
                guard let context = self.context,
                    self.apply(decision, number: number, to: request, requestId: requestId, started: started, context: context)
                else { return }
                if self.state.waitedAdmissionApplied() { context.read() }
                self.takeHeldParts(context: context)
            }
        }
    }

    /// Starts `request`, read at `started`, as its admission decided; false when the decision came too late.
    @discardableResult
    private func apply(
        _ decision: PassThroughDecision, number: Int, to request: HTTPRequest, requestId: String, started: ContinuousClock.Instant,
        context: ChannelHandlerContext
    ) -> Bool {
        let action = state.admitted(decision.admission(method: request.method), number: number, now: .now())
        switch (decision, action) {
        case (_, .ignore):
            return false
        case (.router(let head, _), .delegate(let writesContinue, let quiescesRouter)),
            (.compose(let head, _, _), .delegate(let writesContinue, let quiescesRouter)):
            counters.delegated.increment()
            if writesContinue { writeContinue(context: context) }
            context.fireChannelRead(wrapInboundOut(.head(head)))
            if quiescesRouter { context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        case (.preflight(let headers, let route), .answerPreflight(let closing)):
            counters.refused.increment()
            let span = tracing?.serverSpan(for: request, route: route, ids: &traceIds)
            var fields = headers
            fields[.requestId] = requestId
            if let serverName { fields[.server] = serverName }
            fields[.contentLength] = "0"
            context.write(wrapOutboundOut(.head(GatewayHTTP1Codec.head(HTTPResponse(status: .noContent, headerFields: fields)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            metrics.record(route: route ?? "Unknown", method: request.method, status: .noContent, since: started, failed: false)
            tracing?.end(span, status: .noContent, requestId: requestId)
            if closing { context.close(promise: nil) }
        case (.refuse(let error, let route, _, _), .refuse(let closing)):
            counters.refused.increment()
            let span = tracing?.serverSpan(for: request, route: route, ids: &traceIds)
            writeError(error, requestId: requestId, closing: closing, context: context)
            metrics.record(route: route ?? "Unknown", method: request.method, status: error.status, since: started, failed: true)
            tracing?.end(span, status: error.status, requestId: requestId)
            if closing { context.close(promise: nil) }
        case (.forward(var forwarded), .forward(let writesContinue, let deadlineCheckAt)):
            counters.forwarded.increment()
            let serverSpan = tracing?.serverSpan(for: request, route: forwarded.route, ids: &traceIds)
            let clientSpan = serverSpan.flatMap { tracing?.clientSpan(for: &forwarded, under: $0, ids: &traceIds) }
            let exchange = PassThroughExchange(
                request: forwarded, requestId: requestId, method: request.method, started: started, active: metrics.active(request.method))
            exchange.serverSpan = serverSpan
            exchange.clientSpan = clientSpan
            self.exchange = exchange
            exchange.active.increment()
            if let deadlineCheckAt { scheduleDeadlineCheck(at: deadlineCheckAt, on: context.eventLoop) }
            if writesContinue { writeContinue(context: context) }
            connect(exchange, excluding: [])
        default:
            assertionFailure("the state machine answered \(decision) with \(action)")
            context.close(promise: nil)
        }
        return true
    }

    /// `100 Continue`: the client that asked for it may send its body.
    private func writeContinue(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.head(GatewayHTTP1Codec.head(HTTPResponse(status: .continue)))), promise: nil)
    }

    // MARK: - The router's answers, shutdown, the client's end

    /// The router's answer parts, in NIO's HTTP/1 form, its head with the headers the admission decided.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case .head(var response):
            if let answerHeaders = state.routerAnswerHeadWritten(informational: response.status.kind == .informational) {
                for field in answerHeaders where field.name != .vary || !response.headerFields[values: .vary].contains(field.value) {
                    response.headerFields.append(field)
                }
            }
            context.write(wrapOutboundOut(.head(GatewayHTTP1Codec.head(response))), promise: promise)
        case .body(let body):
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .end(let trailers):
            context.write(wrapOutboundOut(.end(trailers.map(GatewayHTTP1Codec.headers))), promise: promise)
            if state.routerAnswerEnded() { takeHeldParts(context: context) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch state.quiesceRequested() {
        case .passOn: context.fireUserInboundEventTriggered(event)
        case .held: break
        case .endStream(let ending): carryOut(ending)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard state.closeRequested(inputOnly: mode == .input) else {
            promise?.succeed()
            return
        }
        context.close(mode: mode, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, state.clientWritable(), let connection = exchange?.connection {
            connection.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        abandonExchange()
        context.fireChannelInactive()
    }

    /// The client's connection went away: the exchange in progress, if any, is recorded and its upstream connection
    /// closed.
    private func abandonExchange() {
        let abandonment = state.clientGone()
        guard let exchange else { return }
        self.exchange = nil
        exchange.closeConnection()
        guard let abandonment else { return }
        record(exchange, status: abandonment.status, failed: abandonment.failed, wasStream: abandonment.wasStream)
    }

    // MARK: - Upstream side

    /// Leases an address for `exchange`, none of `excluding`, and sends it there, on an idle connection of this loop
    /// or a new one.
    private func connect(_ exchange: PassThroughExchange, excluding: [Int]) {
        guard let pool else { return }
        guard let lease = exchange.request.balancer.lease(excluding: excluding) else {
            connectingFailed(error: UpstreamAddressesExhausted())
            return
        }
        exchange.lease = lease
        let address = lease.endpoint.address
        if let connection = pool.takeIdle(to: address) {
            attach(connection, to: exchange)
            return
        }
        pool.connect(to: address).assumeIsolated().whenComplete { result in
            guard self.exchange === exchange else {
                if case .success(let channel) = result { channel.close(promise: nil) }
                return
            }
            switch result {
            case .success(let channel):
                do {
                    self.attach(try UpstreamConnectionPool.Connection(channel: channel, address: address), to: exchange)
                } catch {
                    channel.close(promise: nil)
                    self.connectingFailed(error: error)
                }
            case .failure(let error):
                self.connectFailed(exchange, error: error)
            }
        }
    }

    /// No address is left, or the connection made cannot be used: 503.
    private func connectingFailed(error: any Error) {
        do { carryOut(try state.connectingFailed(), error: error) } catch { closeOnIllegal(error) }
    }

    /// No connection could be made to the address of `exchange`'s attempt: it is ejected, and the request goes to
    /// another address not tried yet, or fails with 503 when there is none.
    private func connectFailed(_ exchange: PassThroughExchange, error: any Error) {
        guard let lease = exchange.lease else { return }
        exchange.endLease(connectFailed: true)
        do {
            switch try state.connectFailed(addressIndex: lease.index, addressCount: exchange.request.balancer.endpoints.count) {
            case .connect(let excluding):
                lease.countRetry(reason: .connect)
                logger.debug(
                    "could not connect to an upstream address; trying another",
                    metadata: [
                        "upstream": .string(lease.balancer.name), "address": .string(lease.endpoint.label), "request_id": .string(exchange.requestId),
                    ])
                connect(exchange, excluding: excluding)
            case .fail(let ending):
                carryOut(ending, error: error)
            }
        } catch {
            closeOnIllegal(error)
        }
    }

    /// Sends the request on `connection`: its head (with the `Host` of the connection's address), the body read so
    /// far and its end when read.
    private func attach(_ connection: UpstreamConnectionPool.Connection, to exchange: PassThroughExchange) {
        let sending: PassThroughStateMachine.RequestSending
        do { sending = try state.connectionMade() } catch {
            connection.channel.close(promise: nil)
            closeOnIllegal(error)
            return
        }
        exchange.connection = connection
        connection.relay.exchange = self
        connection.relay.expectAnswer(requestIsHead: sending.isHead, decodesChunks: sending.decodesChunks)
        let channel = connection.channel
        // The client's `Host` was left out (hop-by-hop): the connection's address is named instead.
        channel.write(
            UpstreamRequestBytes.head(exchange.request.head, host: connection.address.authority, allocator: channel.allocator), promise: nil)
        for buffer in sending.body {
            if let bytes = UpstreamRequestBytes.body(buffer, chunked: sending.chunked, allocator: channel.allocator) {
                channel.write(bytes, promise: nil)
            }
        }
        if sending.sendsEnd, sending.chunked { channel.write(ChunkedBytes.last(allocator: channel.allocator), promise: nil) }
        flush(channel, now: sending.flushNow)
        if channel.isWritable, state.upstreamWritable() { context?.read() }
    }

    func upstreamRead(_ event: UpstreamAnswerParser.Event) {
        guard let exchange, let context else { return }
        do {
            switch event {
            case .head(let head):
                let action = try state.answerHeadRead(
                    status: head.status, keepAlive: head.keepAlive, framing: head.framing, isEventStream: head.isEventStream)
                exchange.endLease()
                tracing?.end(exchange.clientSpan, status: head.status)
                exchange.clientSpan = nil
                if action.startsStream { counters.openStreams.increment() }
                var bytes = context.channel.allocator.buffer(capacity: head.fieldLines.readableBytes + 512)
                upstreamAnswerHeaders.write(
                    head, decided: exchange.request.answerHeaders, requestId: exchange.requestId, chunked: action.chunked,
                    connection: action.connection, into: &bytes)
                writeAnswerBytes(bytes)
                if let ending = action.streamEnding { carryOut(ending) }
            case .body(let buffer):
                let rechunks = try state.answerBodyRead()
                writeAnswerBytes(rechunks ? ChunkedBytes.chunk(buffer, allocator: context.channel.allocator) : buffer)
                if !context.channel.isWritable, state.clientFull(), let connection = exchange.connection {
                    connection.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
                }
            case .end:
                carryOut(try state.answerEndRead())
            }
        } catch {
            closeOnIllegal(error)
        }
    }

    /// Writes bytes of an upstream's answer to the client, past the HTTP/1 encoder (`answerBytesOutput`).
    private func writeAnswerBytes(_ bytes: ByteBuffer) {
        answerBytesOutput?.write(NIOAny(bytes), promise: nil)
    }

    func upstreamReadComplete() {
        context?.flush()
    }

    func upstreamBecameWritable() {
        if state.upstreamWritable() { context?.read() }
    }

    func upstreamClosed(error: (any Error)?) {
        guard let exchange else { return }
        exchange.connection = nil
        do {
            switch try state.upstreamClosed() {
            case .connect(let excluding):
                exchange.lease?.countRetry(reason: .closed)
                exchange.endLease()
                logger.debug(
                    "upstream closed the connection before answering; sending the safe request again",
                    metadata: ["request_id": .string(exchange.requestId)])
                connect(exchange, excluding: excluding)
            case .fail(let ending):
                carryOut(ending, error: error ?? ChannelError.eof)
            }
        } catch {
            closeOnIllegal(error)
        }
    }

    private func scheduleDeadlineCheck(at deadline: NIODeadline, on eventLoop: any EventLoop) {
        // Cancelled when the handler is removed.
        deadlineCheck = eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { self.deadlineCheckFired() }
    }

    private func deadlineCheckFired() {
        deadlineCheck = nil
        switch state.deadlineCheckFired(now: .now()) {
        case .nothing: break
        case .check(let deadline): if let context { scheduleDeadlineCheck(at: deadline, on: context.eventLoop) }
        case .timeOut(let ending): carryOut(ending, error: UpstreamTimeout())
        }
    }

    // MARK: - An exchange's end

    /// Carries out how the state machine ended the exchange in progress (`ExchangeEnding`, in its order); `error` is
    /// what failed it, for the log.
    private func carryOut(_ ending: PassThroughStateMachine.ExchangeEnding, error: (any Error)? = nil) {
        guard let exchange, let context else { return }
        self.exchange = nil
        exchange.endLease()
        switch ending.upstream {
        case .unattached:
            exchange.connection = nil
        case .close:
            exchange.closeConnection()
        case .giveBack:
            if let connection = exchange.connection {
                if ending.resumesUpstreamReads { connection.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in } }
                pool?.giveBack(connection)
                exchange.connection = nil
            }
        }
        let status: HTTPResponse.Status
        switch ending.answer {
        case .whole(let answered, let lastChunk):
            if lastChunk { writeAnswerBytes(ChunkedBytes.last(allocator: context.channel.allocator)) }
            status = answered
        case .cutOff(let answered):
            logFailure(of: exchange, error: error)
            status = answered
        case .error(let failure, let closing):
            var answer = errorAnswer(failure, upstream: exchange.request.upstreamName)
            if case .bodyTooLarge = failure {} else { logFailure(of: exchange, error: error) }
            answer.headers.append(contentsOf: exchange.request.answerHeaders)
            writeError(answer, requestId: exchange.requestId, closing: closing, context: context)
            status = answer.status
        }
        record(exchange, status: status, failed: ending.failed, wasStream: ending.wasStream)
        if ending.readsClient { context.read() }
        context.flush()
        if ending.closesClient {
            context.close(promise: nil)
        } else {
            takeHeldParts(context: context)
        }
    }

    private func logFailure(of exchange: PassThroughExchange, error: (any Error)?) {
        logger.warning(
            "upstream request failed",
            metadata: [
                "upstream": .string(exchange.request.upstreamName), "error": "\(error.map { "\($0)" } ?? "unknown")",
                "request_id": .string(exchange.requestId),
            ])
    }

    /// The error answer of `failure`, as `UpstreamClient` maps the same failures.
    private func errorAnswer(_ failure: PassThroughStateMachine.ExchangeFailure, upstream: String) -> APIError {
        switch failure {
        case .bodyTooLarge(let limit): BodyFraming.tooLarge(limit: limit)
        case .timedOut: UpstreamClient.timedOut(upstream)
        case .unavailable: UpstreamClient.unavailable(upstream)
        case .failed: UpstreamClient.failed(upstream)
        }
    }

    /// What ends every exchange, answered or abandoned: its gauges, spans, metrics and access-log line with `status`.
    private func record(_ exchange: PassThroughExchange, status: HTTPResponse.Status, failed: Bool, wasStream: Bool) {
        exchange.endLease()
        exchange.active.decrement()
        if wasStream { counters.openStreams.decrement() }
        tracing?.end(exchange.clientSpan, status: status)
        exchange.clientSpan = nil
        tracing?.end(exchange.serverSpan, status: status, requestId: exchange.requestId)
        exchange.serverSpan = nil
        metrics.record(route: exchange.request.route, method: exchange.method, status: status, since: exchange.started, failed: failed)
        AccessLog.record(
            on: logger, level: accessLogLevel, method: exchange.method, path: Substring(exchange.request.head.uri), status: status,
            since: exchange.started, extra: ["request_id": .string(exchange.requestId)])
    }

    // MARK: - Answers

    /// Writes `error` in the one error shape, as `ErrorMiddleware` would have answered it (with `Connection: close`
    /// when the connection closes after it).
    private func writeError(_ error: APIError, requestId: String, closing: Bool = false, context: ChannelHandlerContext) {
        let body = ErrorBody(code: error.code, message: error.message, details: error.details, requestId: requestId).jsonBytes()
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        fields.append(contentsOf: error.headers)
        fields[.contentLength] = String(body.count)
        fields[.requestId] = requestId
        if closing { fields[.connection] = "close" }
        if let serverName { fields[.server] = serverName }
        context.write(wrapOutboundOut(.head(GatewayHTTP1Codec.head(HTTPResponse(status: error.status, headerFields: fields)))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

extension PassThroughDecision {
    /// What the state machine takes of the decision on a request of `method`.
    func admission(method: HTTPRequest.Method) -> PassThroughStateMachine.Admission {
        switch self {
        case .router(_, let answerHeaders): .router(answerHeaders: answerHeaders, expectsContinue: false)
        case .compose(_, let answerHeaders, let expectsContinue): .router(answerHeaders: answerHeaders, expectsContinue: expectsContinue)
        case .preflight: .preflight
        case .refuse(_, _, let closesConnection, let declaredLength): .refuse(closesConnection: closesConnection, declaredLength: declaredLength)
        case .forward(let request): .forward(request.terms(method: method))
        }
    }
}

/// The upstream did not answer within the gateway's upstream timeout.
private struct UpstreamTimeout: Error, CustomStringConvertible {
    var description: String { "no answer within the upstream timeout" }
}
