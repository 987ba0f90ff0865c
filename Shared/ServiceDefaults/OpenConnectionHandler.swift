import NIOCore

/// Keeps one client connection in its server's `OpenConnections` from the moment it is set up until it closes, and
/// closes it from its place in the pipeline when asked to.
public final class OpenConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny

    private let connections: OpenConnections
    private var context: ChannelHandlerContext?

    init(connections: OpenConnections) {
        self.connections = connections
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        connections.opened(ObjectIdentifier(context.channel)) {
            loop.execute { handler.value.close() }
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        connections.closed(ObjectIdentifier(context.channel))
        self.context = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        connections.closed(ObjectIdentifier(context.channel))
        context.fireChannelInactive()
    }

    private func close() {
        context?.close(mode: .all, promise: nil)
    }
}

@available(*, unavailable)
extension OpenConnectionHandler: Sendable {}
