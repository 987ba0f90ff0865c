import Glibc
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// A bare TCP client for what HTTP clients will not do, such as pipelining or a slow upload: writes the given bytes
/// and returns everything the server sent until it closed the connection.
enum RawHTTPConnection {
    /// Writes `text` in one write.
    static func send(_ text: String, port: Int) async throws -> String {
        try await send([text], pausing: .zero, port: port)
    }

    /// Writes each of `parts` in turn, waiting `pause` before every part but the first, until the server closes.
    static func send(_ parts: [String], pausing pause: Duration, port: Int) async throws -> String {
        let received = Received()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received: received)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        for (index, part) in parts.enumerated() {
            if index > 0 { try await Task.sleep(for: pause) }
            // A server that answered and closed takes no more: what it sent is the answer.
            guard channel.isActive else { break }
            try await channel.writeAndFlush(ByteBuffer(string: part))
        }
        try await channel.closeFuture.get()
        return received.text.withLock { $0 }
    }

    /// Writes `text`, then, once `ready` holds (polled every 10 ms, for at most 10 s: the server has the request), resets
    /// the connection whatever came back (`SO_LINGER` 0: an RST, as a client that went away does; a plain close is only
    /// the end of the request, and the answer is still owed); returns what came back.
    static func sendAndHangUp(_ text: String, once ready: () throws -> Bool, port: Int) async throws -> String {
        let received = Received()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received: received)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: text))
        let deadline = ContinuousClock.now + .seconds(10)
        while try !ready() {
            try #require(ContinuousClock.now < deadline, "the server never had the request")
            try await Task.sleep(for: .milliseconds(10))
        }
        let options = try #require(channel as? any SocketOptionProvider)
        try await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        try await channel.close()
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
