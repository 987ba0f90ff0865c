import NIOCore

/// Reads an upstream connection's answers (`UpstreamAnswerParser`) and hands them to the exchange that leased the
/// connection (`UpstreamExchangeDelegate`); while the connection waits in its pool, a close removes it from there, and
/// any byte it sends closes it. Lives on the connection's event loop, as do the exchange and the pool.
final class UpstreamResponseRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// The exchange using the connection; nil while it is idle in the pool.
    var exchange: (any UpstreamExchangeDelegate)?
    /// Called once when the connection closes while idle.
    var onIdleClose: (() -> Void)?
    /// The connection may serve another request once its answer ended: false when bytes followed that end.
    private(set) var isReusable = true
    private var parser = UpstreamAnswerParser()

    /// A request was sent on the connection (a HEAD request when `requestIsHead`): its answer comes next, a chunked
    /// one as its chunks' data when `decodesChunks` (`UpstreamAnswerParser.expectAnswer`).
    func expectAnswer(requestIsHead: Bool, decodesChunks: Bool) {
        parser.expectAnswer(requestIsHead: requestIsHead, decodesChunks: decodesChunks)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        do {
            while let event = try parser.next(from: &buffer) {
                if case .end = event, buffer.readableBytes > 0 { isReusable = false }
                exchange?.upstreamRead(event)
            }
        } catch {
            errorCaught(context: context, error: error)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        exchange?.upstreamReadComplete()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { exchange?.upstreamBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isReusable = false
        if let exchange {
            do {
                // An answer that lasts until the connection closes ends here.
                if let end = try parser.inputClosed() {
                    exchange.upstreamRead(end)
                } else {
                    self.exchange = nil
                    exchange.upstreamClosed(error: nil)
                }
            } catch {
                self.exchange = nil
                exchange.upstreamClosed(error: error)
            }
        } else {
            onIdleClose?()
        }
        onIdleClose = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        isReusable = false
        if let exchange {
            self.exchange = nil
            exchange.upstreamClosed(error: error)
        }
        context.close(promise: nil)
    }
}

/// The pass-through's side of an upstream connection in use: every call comes on the connection's event loop.
protocol UpstreamExchangeDelegate: AnyObject {
    /// The next part of the upstream's answer.
    func upstreamRead(_ event: UpstreamAnswerParser.Event)
    /// The end of one read from the socket: time to flush what was passed on.
    func upstreamReadComplete()
    /// The connection takes writes again after its write buffer had filled.
    func upstreamBecameWritable()
    /// The connection ended (with the error that ended it, if any) while the exchange used it.
    func upstreamClosed(error: (any Error)?)
}
