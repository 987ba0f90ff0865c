import NIOCore
import NIOPosix
import Synchronization

/// A bare HTTP/1.1 upstream that closes the connection of each of the first `dropping` requests it receives,
/// without answering (what a draining service does to a keep-alive connection the gateway is just using), and
/// answers `200 ok` to the requests after those. Records the request line of every request it received, but for the
/// gateway's readiness probes, which it answers `200 ok` (they are not the requests under test).
struct ConnectionDroppingUpstream: Sendable {
    private let channel: any Channel
    private let log: RequestLog

    var port: Int { channel.localAddress!.port! }
    var requestLines: [String] { log.state.withLock { $0.lines } }

    static func start(dropping: Int) async throws -> ConnectionDroppingUpstream {
        let log = RequestLog(dropping: dropping)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Handler(log: log)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ConnectionDroppingUpstream(channel: channel, log: log)
    }

    func stop() async throws { try await channel.close() }

    private final class RequestLog: Sendable {
        let state: Mutex<(dropsLeft: Int, lines: [String])>
        init(dropping: Int) { state = Mutex((dropping, [])) }

        /// Records the request and answers whether to drop its connection.
        func shouldDrop(_ requestLine: String) -> Bool {
            state.withLock { state in
                state.lines.append(requestLine)
                guard state.dropsLeft > 0 else { return false }
                state.dropsLeft -= 1
                return true
            }
        }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let log: RequestLog
        var head = ""

        init(log: RequestLog) { self.log = log }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            head += String(buffer: unwrapInboundIn(data))
            guard let end = head.range(of: "\r\n\r\n") else { return }
            let requestLine = String(head[..<(head.range(of: "\r\n")?.lowerBound ?? end.lowerBound)])
            head = ""
            if !requestLine.hasPrefix("GET /health/ready "), log.shouldDrop(requestLine) {
                context.close(promise: nil)
                return
            }
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        }
    }
}
