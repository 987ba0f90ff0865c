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
final class PassThroughHandler: ChannelDuplexHandler, RemovableChannelHandler, UpstreamExchangeDelegate {
    /// NIO's HTTP/1 request parts, as its decoder read them: a proxied request's body goes on as it came, and only
    /// what the router gets is converted to HTTPTypes (`GatewayHTTP1Codec`).
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    /// The router's answers, in HTTPTypes; what goes to the client through the encoder is NIO's HTTP/1 parts (the
    /// router's answers and the gateway's own); an upstream's answer goes as bytes (`answerBytesOutput`).
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Where the parts of the request being read go.
    private enum Reading {
        case nothing, router, exchange, discard
    }

    private let admission: PassThroughAdmission
    private let pools: UpstreamConnectionPools
    private let metrics: RequestMetricsRecorder
    private let counters: PassThroughCounters
    private let upstreamTimeout: TimeAmount
    private let tracing: PassThroughTracing?
    /// The level of the line each completed request logs (`AccessLog`).
    private let accessLogLevel = AccessLog.level
    /// `Server` of every answer, as the router's answers say it.
    private let serverName: String?
    /// How an upstream's answer headers reach the client.
    private let upstreamAnswerHeaders: UpstreamAnswerHeaders
    private let logger: Logger

    private var context: ChannelHandlerContext?
    /// The context of the connection's HTTP/1 response encoder: an upstream's answer is written from there, as the
    /// bytes it is (`UpstreamAnswerHeaders`, then its body as read), past the encoder, which only the router's answers
    /// and the gateway's own need.
    private var answerBytesOutput: ChannelHandlerContext?
    private var pool: UpstreamConnectionPool?
    private var peer: String?
    /// The bearer token this connection sent last, and its caller.
    private var recentBearer: RecentBearer?
    private var reading = Reading.nothing
    /// Bytes of the body being dropped (`Reading.discard`): past `discardingUpTo` the connection is closed instead.
    private var discardedBytes = 0
    private var discardingUpTo = PassThroughHandler.discardLimit
    /// The most of a refused request's chunked body read and dropped to keep the connection for the next request. A
    /// declared body, and the rest of a body the upstream answered early (a 413 of the service's own limit, say), are
    /// read whole (they are within the route's limit), so their client can read the answer.
    static let discardLimit = 1 << 20
    /// The router is answering a request this handler gave it.
    private var routerAnswering = false
    /// Headers the router's answer in progress gets (`PassThroughDecision.router` and `.compose`).
    private var routerAnswerHeaders: HTTPFields = [:]
    /// An admission is waiting (`AdmissionStep.waiting`): the request's parts wait in `waiting` until it is decided.
    private var admitting = false
    /// Counts admissions, so that a decision arriving after its connection closed is dropped.
    private var admissionNumber = 0
    private var exchange: PassThroughExchange?
    /// The scheduled check of the exchange's upstream deadline (`armTimeout`), while one is scheduled.
    private var deadlineCheck: Scheduled<Void>?
    /// Parts of requests read while another was answered.
    private var waiting = CircularBuffer<HTTPServerRequestPart>()
    /// Parts read from the client since the last read's end (`channelRead` until `channelReadComplete`).
    private var inClientRead = false
    /// The router got parts since the end of the last read: it is told of the read's end (its inbound stream delivers
    /// on that); a read that only fed exchanges ends here.
    private var routerGotParts = false
    /// An upstream connection written to during the client's read: flushed once at the read's end, so a request's
    /// head and end go out in one write.
    private var upstreamToFlush: (any Channel)?
    /// Close once the exchange in progress has answered (shutdown, or the client asked for it).
    private var closeAfterExchange = false
    /// The client of the request being started speaks HTTP/1.1 (not HTTP/1.0).
    private var clientIsHTTP11 = true
    /// The server is shutting down (`ChannelShouldQuiesceEvent` came while an exchange or admission was in progress).
    private var quiescing = false
    /// Reads from the client are held while the upstream does not take the request body as fast as the client
    /// sends it (or is not connected yet), so a large upload is held here by at most the upstream connection's
    /// write buffer, not whole.
    private var clientReadsHeld = false
    /// The pipeline asked for a read while they were held: it is made when they are released.
    private var clientReadPending = false

    init(
        admission: PassThroughAdmission, pools: UpstreamConnectionPools, metrics: RequestMetricsRecorder, counters: PassThroughCounters,
        upstreamTimeout: Duration, serverName: String?, tracing: PassThroughTracing?, logger: Logger
    ) {
        self.admission = admission
        self.tracing = tracing
        self.pools = pools
        self.metrics = metrics
        self.counters = counters
        self.upstreamTimeout = .init(upstreamTimeout)
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
        admissionNumber += 1
        self.context = nil
        self.answerBytesOutput = nil
    }

    // MARK: - Client side

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        inClientRead = true
        if reading == .nothing, isAnswering || !waiting.isEmpty {
            waiting.append(part)
        } else {
            process(part, context: context)
        }
    }

    private var isAnswering: Bool { routerAnswering || admitting || exchange != nil }

    func channelReadComplete(context: ChannelHandlerContext) {
        inClientRead = false
        flushUpstream()
        if routerGotParts {
            routerGotParts = false
            context.fireChannelReadComplete()
        }
    }

    /// Flushes the upstream connection written to during the client's read.
    private func flushUpstream() {
        guard let channel = upstreamToFlush else { return }
        upstreamToFlush = nil
        channel.flush()
    }

    /// Flushes `channel` now, or at the end of the client's read when one is in progress.
    private func flush(_ channel: any Channel) {
        if inClientRead {
            if let pending = upstreamToFlush, pending !== channel { pending.flush() }
            upstreamToFlush = channel
        } else {
            channel.flush()
        }
    }

    /// Gives `part` to the router.
    private func passToRouter(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        routerGotParts = true
        switch part {
        case .head(let head):
            if let request = request(of: head, context: context) { context.fireChannelRead(wrapInboundOut(.head(request))) }
        case .body(let buffer):
            context.fireChannelRead(wrapInboundOut(.body(buffer)))
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers.map { GatewayHTTP1Codec.fields($0, skippingHost: false) })))
        }
    }

    /// The HTTPTypes request of `head`, or nil after reporting why there is none (a method that is not a token): the
    /// router ends the connection on it, as on any error its codec reports.
    private func request(of head: HTTPRequestHead, context: ChannelHandlerContext) -> HTTPRequest? {
        do {
            return try GatewayHTTP1Codec.request(head)
        } catch {
            context.fireErrorCaught(error)
            return nil
        }
    }

    func read(context: ChannelHandlerContext) {
        if clientReadsHeld {
            clientReadPending = true
        } else {
            context.read()
        }
    }

    /// Reads from the client wait until the upstream takes what was read (counted as a body hold), or until a waiting
    /// admission decides (counted as an admission wait instead).
    private func holdClientReads(isBodyHold: Bool = true) {
        guard !clientReadsHeld else { return }
        clientReadsHeld = true
        if isBodyHold { counters.bodyHolds.increment() }
    }

    /// Lets reads from the client go on, making the one asked for meanwhile.
    private func releaseClientReads() {
        guard clientReadsHeld else { return }
        clientReadsHeld = false
        if clientReadPending, let context {
            clientReadPending = false
            context.read()
        }
    }

    private func process(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch reading {
        case .router:
            if case .end = part { reading = .nothing }
            passToRouter(part, context: context)
        case .exchange:
            if case .end = part { reading = .nothing }
            if let exchange { forward(part, of: exchange) }
        case .discard:
            switch part {
            case .body(let buffer):
                discardedBytes += buffer.readableBytes
                if discardedBytes > discardingUpTo { context.close(promise: nil) }
            case .end:
                reading = .nothing
                processWaiting(context: context)
            case .head:
                break
            }
        case .nothing:
            guard case .head(let head) = part else {
                passToRouter(part, context: context)
                return
            }
            // The connection closes after the answer when the client asked so (`Connection: close`, or HTTP/1.0
            // without `keep-alive`).
            if !head.isKeepAlive { closeAfterExchange = true }
            clientIsHTTP11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
            if let request = request(of: head, context: context) { begin(request, context: context) }
        }
    }

    /// Admits a new request and starts it, or waits for its admission.
    private func begin(_ request: HTTPRequest, context: ChannelHandlerContext) {
        let started = ContinuousClock.now
        let requestId = RequestIdMiddleware<GatewayRequestContext>.acceptable(request.headerFields.value(of: .requestId)) ?? RandomRequestId.make()
        switch admission.begin(request, peer: peer, requestId: requestId, recent: &recentBearer) {
        case .decided(let decision):
            apply(decision, to: request, requestId: requestId, started: started, context: context)
        case .waiting(let pending):
            counters.admissionWaits.increment()
            admitting = true
            admissionNumber += 1
            let number = admissionNumber
            holdClientReads(isBodyHold: false)
            let decided = context.eventLoop.makePromise(of: PassThroughDecision.self)
            decided.completeWithTask { [admission] in await admission.finish(pending) }
            // Captured strongly, as below: a weak reference would give the handler a side table, and every retain of it
            // the slow path; the future always completes, and a decision for a closed connection is dropped.
            decided.futureResult.assumeIsolated().whenSuccess { decision in
                guard self.admissionNumber == number, let context = self.context else { return }
                self.admitting = false
                self.apply(decision, to: request, requestId: requestId, started: started, context: context)
                self.releaseClientReadsUnlessForwarding()
                self.processWaiting(context: context)
            }
        }
    }

    /// Starts `request`, read at `started`, as its admission decided.
    private func apply(
        _ decision: PassThroughDecision, to request: HTTPRequest, requestId: String, started: ContinuousClock.Instant, context: ChannelHandlerContext
    ) {
        switch decision {
        case .router(let head, let answerHeaders):
            delegate(head, answerHeaders: answerHeaders, context: context)
        case .compose(let head, let answerHeaders, let expectsContinue):
            if expectsContinue { writeContinue(context: context) }
            delegate(head, answerHeaders: answerHeaders, context: context)
        case .preflight(let headers, let route):
            counters.refused.increment()
            startDiscarding()
            let span = tracing?.serverSpan(for: request, route: route)
            var fields = headers
            fields[.requestId] = requestId
            if let serverName { fields[.server] = serverName }
            fields[.contentLength] = "0"
            context.write(wrapOutboundOut(.head(GatewayHTTP1Codec.head(HTTPResponse(status: .noContent, headerFields: fields)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            metrics.record(route: route ?? "Unknown", method: request.method, status: .noContent, since: started, failed: false)
            PassThroughTracing.end(span, status: .noContent, requestId: requestId)
            if closeAfterExchange { context.close(promise: nil) }
        case .refuse(let error, let route, let closesConnection, let declaredLength):
            counters.refused.increment()
            // A declared body is within the route's limit (a larger one is refused with the connection closed): it is
            // read whole, so its client, still sending, can read the refusal (a 401 to refresh its token on, say).
            startDiscarding(upTo: max(Self.discardLimit, declaredLength ?? 0))
            let span = tracing?.serverSpan(for: request, route: route)
            writeError(error, requestId: requestId, closing: closesConnection || closeAfterExchange, context: context)
            metrics.record(route: route ?? "Unknown", method: request.method, status: error.status, since: started, failed: true)
            PassThroughTracing.end(span, status: error.status, requestId: requestId)
            if closesConnection || closeAfterExchange { context.close(promise: nil) }
        case .forward(var forwarded):
            counters.forwarded.increment()
            let serverSpan = tracing?.serverSpan(for: request, route: forwarded.route)
            let clientSpan = serverSpan.flatMap { tracing?.clientSpan(for: &forwarded, under: $0) }
            let exchange = PassThroughExchange(
                request: forwarded, requestId: requestId, method: request.method, clientIsHTTP11: clientIsHTTP11, started: started,
                active: metrics.active(request.method))
            exchange.serverSpan = serverSpan
            exchange.clientSpan = clientSpan
            self.exchange = exchange
            reading = .exchange
            exchange.active.increment()
            armTimeout(of: exchange, on: context.eventLoop)
            if forwarded.expectsContinue { writeContinue(context: context) }
            connect(exchange)
        }
    }

    /// Gives `head` to the router; its answer gets `answerHeaders`.
    private func delegate(_ head: HTTPRequest, answerHeaders: HTTPFields, context: ChannelHandlerContext) {
        counters.delegated.increment()
        reading = .router
        routerAnswering = true
        routerAnswerHeaders = answerHeaders
        routerGotParts = true
        context.fireChannelRead(wrapInboundOut(.head(head)))
        // A shutdown that began while the admission waited was held here: the router learns of it now.
        if closeAfterExchange { context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }

    /// Drops the rest of the request being read, up to `limit` bytes.
    private func startDiscarding(upTo limit: Int = PassThroughHandler.discardLimit) {
        reading = .discard
        discardedBytes = 0
        discardingUpTo = limit
    }

    /// `100 Continue`: the client that asked for it may send its body.
    private func writeContinue(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.head(GatewayHTTP1Codec.head(HTTPResponse(status: .continue)))), promise: nil)
    }

    /// After a waited admission: reads go on unless an exchange holds them until its upstream connection is made.
    private func releaseClientReadsUnlessForwarding() {
        if exchange?.connection == nil, exchange != nil { return }
        releaseClientReads()
    }

    /// Passes a body part or the end of the client's request to the upstream, or keeps it until connected.
    private func forward(_ part: HTTPServerRequestPart, of exchange: PassThroughExchange) {
        switch part {
        case .head:
            return
        case .body(let buffer):
            exchange.bodyBytesRead += buffer.readableBytes
            if let limit = exchange.request.undeclaredBodyLimit, exchange.bodyBytesRead > limit {
                startDiscarding()
                fail(exchange, error: BodyTooLarge(limit: limit), connecting: false)
                return
            }
            if let connection = exchange.connection {
                writeBody(buffer, of: exchange, to: connection.channel)
                flush(connection.channel)
                if !connection.channel.isWritable { holdClientReads() }
            } else {
                exchange.bodyWaiting.append(buffer)
                holdClientReads()
            }
            rearmTimeout(of: exchange)
        case .end:
            exchange.requestRead = true
            // Without a body the request ended as it began: the timeout armed then stands.
            if exchange.bodyBytesRead > 0 { rearmTimeout(of: exchange) }
            if let connection = exchange.connection {
                writeEnd(of: exchange, to: connection.channel)
                flush(connection.channel)
            }
        }
    }

    /// Writes a part of `exchange`'s request body to its upstream `channel`, in a chunk when the body is chunked.
    private func writeBody(_ buffer: ByteBuffer, of exchange: PassThroughExchange, to channel: any Channel) {
        guard let bytes = UpstreamRequestBytes.body(buffer, chunked: exchange.request.bodyIsChunked, allocator: channel.allocator) else { return }
        channel.write(bytes, promise: nil)
    }

    /// Writes the end of `exchange`'s request to its upstream `channel` (the last chunk of a chunked body); the whole
    /// request has then been sent.
    private func writeEnd(of exchange: PassThroughExchange, to channel: any Channel) {
        if exchange.request.bodyIsChunked { channel.write(ChunkedBytes.last(allocator: channel.allocator), promise: nil) }
        exchange.requestSent = true
    }

    /// Starts the requests that waited while another was answered, in order. Parts given to the router outside a read
    /// from the socket are followed by a read's end for it (its inbound stream delivers on that), as are the upstream
    /// writes of a request started here.
    private func processWaiting(context: ChannelHandlerContext) {
        while let part = waiting.first {
            if reading == .nothing, isAnswering { break }
            waiting.removeFirst()
            process(part, context: context)
        }
        if !inClientRead, routerGotParts {
            routerGotParts = false
            context.fireChannelReadComplete()
        }
    }

    /// The router's answer parts, in NIO's HTTP/1 form, its head with the headers the admission decided.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case .head(var response):
            if routerAnswering, response.status.kind != .informational, !routerAnswerHeaders.isEmpty {
                for field in routerAnswerHeaders where field.name != .vary || !response.headerFields[values: .vary].contains(field.value) {
                    response.headerFields.append(field)
                }
            }
            context.write(wrapOutboundOut(.head(GatewayHTTP1Codec.head(response))), promise: promise)
        case .body(let body):
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .end(let trailers):
            context.write(wrapOutboundOut(.end(trailers.map(GatewayHTTP1Codec.headers))), promise: promise)
            guard routerAnswering else { return }
            routerAnswering = false
            processWaiting(context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, exchange != nil || admitting {
            closeAfterExchange = true
            quiescing = true
            if let exchange, exchange.isStream { endStream(exchange, context: context) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Ends a stream of Server-Sent Events at shutdown: it has no end of its own, so it ends now, cleanly, and the
    /// client reconnects to another gateway.
    private func endStream(_ exchange: PassThroughExchange, context: ChannelHandlerContext) {
        guard let status = exchange.answerStatus else { return }
        exchange.upstreamKeepsAlive = false
        // A chunked stream (what the services send) ends with its last chunk; another kind ends as its connection closes.
        if exchange.answerChunks == .again { writeAnswerBytes(ChunkedBytes.last(allocator: context.channel.allocator)) }
        finish(exchange, status: status, failed: false)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // The router closes its side when it has nothing to answer; an exchange in progress still answers first.
        if exchange != nil, mode != .input {
            closeAfterExchange = true
            promise?.succeed()
            return
        }
        context.close(mode: mode, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let exchange, exchange.upstreamPaused, let connection = exchange.connection {
            exchange.upstreamPaused = false
            connection.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        abandonExchange()
        context.fireChannelInactive()
    }

    // MARK: - Upstream side

    /// Leases an address for `exchange` and sends it there, on an idle connection of this loop or a new one.
    private func connect(_ exchange: PassThroughExchange) {
        guard let pool else { return }
        guard let lease = exchange.request.balancer.lease(excluding: exchange.unreachable) else {
            fail(exchange, error: UpstreamAddressesExhausted(), connecting: true)
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
                    self.fail(exchange, error: error, connecting: true)
                }
            case .failure(let error):
                self.connectFailed(exchange, error: error)
            }
        }
    }

    /// No connection could be made to the address of `exchange`'s attempt: it is ejected, and the request goes to
    /// another address not tried yet, or fails with 503 when there is none.
    private func connectFailed(_ exchange: PassThroughExchange, error: any Error) {
        guard let lease = exchange.lease else { return }
        exchange.endLease(connectFailed: true)
        exchange.unreachable.append(lease.index)
        guard exchange.unreachable.count < exchange.request.balancer.endpoints.count else {
            fail(exchange, error: error, connecting: true)
            return
        }
        // Nothing was sent on a connection that was never made: any method may go to another address, and the body
        // read so far is still in `bodyWaiting`.
        lease.countRetry(reason: .connect)
        logger.debug(
            "could not connect to an upstream address; trying another",
            metadata: ["upstream": .string(lease.balancer.name), "address": .string(lease.endpoint.label), "request_id": .string(exchange.requestId)])
        connect(exchange)
    }

    /// Sends the request on `connection`: its head (with the `Host` of the connection's address), the body read so
    /// far and its end when read.
    private func attach(_ connection: UpstreamConnectionPool.Connection, to exchange: PassThroughExchange) {
        exchange.connection = connection
        connection.relay.exchange = self
        connection.relay.expectAnswer(requestIsHead: exchange.method == .head, decodesChunks: !exchange.clientIsHTTP11)
        let channel = connection.channel
        // The client's `Host` was left out (hop-by-hop): the connection's address is named instead.
        channel.write(
            UpstreamRequestBytes.head(exchange.request.head, host: connection.address.authority, allocator: channel.allocator), promise: nil)
        for buffer in exchange.bodyWaiting { writeBody(buffer, of: exchange, to: channel) }
        exchange.bodyWaiting = []
        if exchange.requestRead { writeEnd(of: exchange, to: channel) }
        flush(channel)
        if channel.isWritable { releaseClientReads() }
    }

    func upstreamRead(_ event: UpstreamAnswerParser.Event) {
        guard let exchange, let context else { return }
        switch event {
        case .head(let head):
            exchange.endLease()
            exchange.answerStatus = head.status
            exchange.upstreamKeepsAlive = head.keepAlive
            PassThroughTracing.end(exchange.clientSpan, status: head.status)
            exchange.clientSpan = nil
            if head.isEventStream {
                exchange.isStream = true
                exchange.deadline = nil
                counters.openStreams.increment()
            }
            if head.framing == .chunked { exchange.answerChunks = !exchange.clientIsHTTP11 ? .removed : head.isEventStream ? .again : .asSent }
            // An answer without a length ends when its connection closes, and so does one without its chunks: the
            // client's connection closes after it.
            if head.framing == .untilClose || exchange.answerChunks == .removed { closeAfterExchange = true }
            var bytes = context.channel.allocator.buffer(capacity: head.fieldLines.readableBytes + 512)
            upstreamAnswerHeaders.write(
                head, decided: exchange.request.answerHeaders, requestId: exchange.requestId,
                chunked: head.framing == .chunked && exchange.answerChunks != .removed,
                connection: closeAfterExchange ? .close : exchange.clientIsHTTP11 ? nil : .keepAlive, into: &bytes)
            writeAnswerBytes(bytes)
            // A stream whose head came after the shutdown began would never end: it ends at once, as open ones did.
            if exchange.isStream, quiescing { endStream(exchange, context: context) }
        case .body(let buffer):
            guard exchange.answerStatus != nil else { return }
            writeAnswerBytes(exchange.answerChunks == .again ? ChunkedBytes.chunk(buffer, allocator: context.channel.allocator) : buffer)
            if !context.channel.isWritable, let connection = exchange.connection, !exchange.upstreamPaused {
                exchange.upstreamPaused = true
                connection.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            }
        case .end:
            guard let status = exchange.answerStatus else { return }
            exchange.answerRead = true
            if exchange.answerChunks == .again { writeAnswerBytes(ChunkedBytes.last(allocator: context.channel.allocator)) }
            finish(exchange, status: status, failed: false)
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
        releaseClientReads()
    }

    func upstreamClosed(error: (any Error)?) {
        guard let exchange else { return }
        exchange.connection = nil
        if exchange.mayRetry {
            exchange.retried = true
            exchange.lease?.countRetry(reason: .closed)
            exchange.endLease()
            logger.debug(
                "upstream closed the connection before answering; sending the safe request again",
                metadata: ["request_id": .string(exchange.requestId)])
            connect(exchange)
            return
        }
        fail(exchange, error: error ?? ChannelError.eof, connecting: false)
    }

    /// Answers 504 when `upstreamTimeout` passes without the upstream answering: arming moves the exchange's
    /// deadline, and one scheduled check per connection (`deadlineCheck`, not a timer per request, whose scheduling
    /// and cancelling showed in the profile) fires at the earliest time a deadline could pass, then again at the
    /// deadline it finds there.
    private func armTimeout(of exchange: PassThroughExchange, on eventLoop: any EventLoop) {
        let deadline = NIODeadline.now() + upstreamTimeout
        exchange.deadline = deadline
        if deadlineCheck == nil { scheduleDeadlineCheck(at: deadline, on: eventLoop) }
    }

    private func scheduleDeadlineCheck(at deadline: NIODeadline, on eventLoop: any EventLoop) {
        // Cancelled when the handler is removed.
        deadlineCheck = eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { self.checkDeadline() }
    }

    /// Times the exchange in progress out when its deadline has passed, else checks again at its deadline.
    private func checkDeadline() {
        deadlineCheck = nil
        guard let exchange, let deadline = exchange.deadline, let context else { return }
        if deadline <= .now() {
            exchange.deadline = nil
            fail(exchange, error: UpstreamTimeout(), connecting: false)
        } else {
            scheduleDeadlineCheck(at: deadline, on: context.eventLoop)
        }
    }

    /// Starts the upstream timeout again while the client is still sending the request (each part read, then its end),
    /// so a slow upload is not taken for a silent upstream: the upstream's time to answer counts from the request's
    /// end, and a client that stops sending mid-body is cut off after the same time without a byte. Nothing once the
    /// answer began.
    private func rearmTimeout(of exchange: PassThroughExchange) {
        guard exchange.deadline != nil, exchange.answerStatus == nil, let context else { return }
        armTimeout(of: exchange, on: context.eventLoop)
    }

    /// Ends `exchange` after a failure: the one error shape when no answer was started, else the client's connection
    /// closes (its answer cannot be completed).
    private func fail(_ exchange: PassThroughExchange, error: any Error, connecting: Bool) {
        exchange.endLease()
        guard let context else { return }
        let upstream = exchange.request.upstreamName
        if !(error is BodyTooLarge) {
            logger.warning(
                "upstream request failed",
                metadata: ["upstream": .string(upstream), "error": "\(error)", "request_id": .string(exchange.requestId)])
        }
        if let connection = exchange.connection {
            connection.relay.exchange = nil
            connection.channel.close(promise: nil)
            exchange.connection = nil
        }
        if let status = exchange.answerStatus {
            finish(exchange, status: status, failed: true)
            context.close(promise: nil)
            return
        }
        var answer: APIError
        if let error = error as? BodyTooLarge {
            answer = error.answer
            closeAfterExchange = true
        } else if error is UpstreamTimeout {
            answer = UpstreamClient.timedOut(upstream)
        } else if connecting {
            answer = UpstreamClient.unavailable(upstream)
        } else {
            answer = UpstreamClient.failed(upstream)
        }
        answer.headers.append(contentsOf: exchange.request.answerHeaders)
        writeError(answer, requestId: exchange.requestId, closing: closeAfterExchange, context: context)
        finish(exchange, status: answer.status, failed: true)
    }

    /// Records the answered exchange, hands its upstream connection back to the pool when it can serve another
    /// request, and goes on with the client's next request.
    private func finish(_ exchange: PassThroughExchange, status: HTTPResponse.Status, failed: Bool) {
        end(exchange, status: status, failed: failed)
        if let connection = exchange.connection, let pool {
            if exchange.upstreamPaused { connection.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in } }
            if exchange.upstreamKeepsAlive, exchange.requestSent, exchange.answerRead {
                pool.giveBack(connection)
            } else {
                connection.relay.exchange = nil
                connection.channel.close(promise: nil)
            }
            exchange.connection = nil
        }
        self.exchange = nil
        // An admitted body is bounded already: by its declared length, or by the route's limit while it is chunked.
        if reading == .exchange { startDiscarding(upTo: exchange.request.undeclaredBodyLimit.map { $0 - exchange.bodyBytesRead } ?? .max) }
        releaseClientReads()
        guard let context else { return }
        context.flush()
        if closeAfterExchange {
            context.close(promise: nil)
            return
        }
        processWaiting(context: context)
    }

    /// What ends every exchange, answered or abandoned: its deadline, lease and gauges; its spans, metrics and
    /// access-log line with `status`.
    private func end(_ exchange: PassThroughExchange, status: HTTPResponse.Status, failed: Bool) {
        exchange.deadline = nil
        exchange.endLease()
        exchange.active.decrement()
        if exchange.isStream { counters.openStreams.decrement() }
        PassThroughTracing.end(exchange.clientSpan, status: status)
        exchange.clientSpan = nil
        PassThroughTracing.end(exchange.serverSpan, status: status, requestId: exchange.requestId)
        exchange.serverSpan = nil
        metrics.record(route: exchange.request.route, method: exchange.method, status: status, since: exchange.started, failed: failed)
        AccessLog.record(
            on: logger, level: accessLogLevel, method: exchange.method, path: Substring(exchange.request.head.uri), status: status,
            since: exchange.started, extra: ["request_id": .string(exchange.requestId)])
    }

    /// The client's connection went away: the exchange in progress ends, its upstream connection with it (the
    /// upstream may still be writing an answer nobody reads). It is recorded with the answer's status when one had
    /// begun, else 499 (nginx's "client closed request": no answer was sent), as a failure unless it was a stream of
    /// events, which ends that way.
    private func abandonExchange() {
        guard let exchange else { return }
        self.exchange = nil
        end(exchange, status: exchange.answerStatus ?? Self.clientClosedRequest, failed: !(exchange.isStream && exchange.answerStatus != nil))
        if let connection = exchange.connection {
            connection.relay.exchange = nil
            connection.channel.close(promise: nil)
        }
    }

    // MARK: - Answers

    /// The status recorded for a request whose client went away before any answer.
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

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

/// The upstream did not answer within the gateway's upstream timeout.
private struct UpstreamTimeout: Error, CustomStringConvertible {
    var description: String { "no answer within the upstream timeout" }
}

/// A chunked request body grew past its route's limit while it was read.
private struct BodyTooLarge: Error, CustomStringConvertible {
    let limit: Int
    var description: String { "the request body grew past \(limit) bytes" }
    var answer: APIError { BodyFraming.tooLarge(limit: limit) }
}
