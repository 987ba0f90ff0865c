import NIOCore
import NIOHTTP1

/// Receives what an upstream connection of the pass-through says and hands it to the exchange that leased the
/// connection (`UpstreamExchangeDelegate`); while the connection waits in its pool, a close removes it from there.
/// Lives on the connection's event loop, as do the exchange and the pool.
final class UpstreamResponseRelay: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// The exchange using the connection; nil while it is idle in the pool.
    var exchange: (any UpstreamExchangeDelegate)?
    /// Called once when the connection closes while idle.
    var onIdleClose: (() -> Void)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        exchange?.upstreamRead(unwrapInboundIn(data))
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
        if let exchange {
            self.exchange = nil
            exchange.upstreamClosed(error: nil)
        } else {
            onIdleClose?()
        }
        onIdleClose = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let exchange {
            self.exchange = nil
            exchange.upstreamClosed(error: error)
        }
        context.close(promise: nil)
    }
}

/// The pass-through's side of an upstream connection in use: every call comes on the connection's event loop.
protocol UpstreamExchangeDelegate: AnyObject {
    /// A part of the upstream's answer.
    func upstreamRead(_ part: HTTPClientResponsePart)
    /// The end of one read from the socket: time to flush what was passed on.
    func upstreamReadComplete()
    /// The connection takes writes again after its write buffer had filled.
    func upstreamBecameWritable()
    /// The connection ended (with the error that ended it, if any) while the exchange used it.
    func upstreamClosed(error: (any Error)?)
}
