import NIOCore
import NIOPosix
import Synchronization

/// A bare TCP client for what HTTP clients will not do, such as pipelining: writes the given bytes in one write and
/// returns everything the server sent until it closed the connection.
enum RawHTTPConnection {
    static func send(_ text: String, port: Int) async throws -> String {
        let received = Received()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received: received)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: text))
        try await channel.closeFuture.get()
        return received.text.withLock { $0 }
    }

    private final class Received: Sendable {
        let text = Mutex("")
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let received: Received

        init(received: Received) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let chunk = String(buffer: unwrapInboundIn(data))
            received.text.withLock { $0 += chunk }
        }
    }
}
