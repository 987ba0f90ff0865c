import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One replica of an upstream service for the balancing tests: answers every request `200` with its name as the body,
/// and `/health/ready` `200` or `503` as `setReady` says (closing that connection, so no probe's connection lingers).
/// Counts both. `stop()` closes its listener and every connection, as a process that exits does: the next connection
/// to its port is refused (the port stays reserved, `ReservedPort`, so no other test's server takes it).
struct ReplicaUpstream: Sendable {
    let name: String
    /// The port it listens on (refused once stopped).
    let port: Int
    private let server: any Channel
    private let record: Record

    /// Requests answered, readiness probes aside.
    var requests: Int { record.state.withLock { $0.requests } }
    /// Readiness probes answered.
    var probes: Int { record.state.withLock { $0.probes } }

    static func start(name: String) async throws -> ReplicaUpstream {
        let record = Record()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                record.state.withLock { $0.connections.append(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(name: name, record: record))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ReplicaUpstream(name: name, port: server.localAddress?.port ?? 0, server: server, record: record)
    }

    /// Makes `/health/ready` answer 200 (`true`) or 503.
    func setReady(_ ready: Bool) { record.state.withLock { $0.ready = ready } }

    /// Stops listening and closes every connection.
    func stop() async throws {
        try await server.close()
        let reserved = ReservedPort(port)
        for connection in record.state.withLock({ $0.connections }) { try? await connection.close() }
        record.state.withLock { $0.reserved = reserved }
    }

    /// What the replica has answered, shared with its connections' handlers.
    private final class Record: Sendable {
        struct State {
            var ready = true
            var requests = 0
            var probes = 0
            var connections: [any Channel] = []
            /// Its port once stopped.
            var reserved: ReservedPort?
        }
        let state = Mutex(State())

        /// Whether `/health/ready` answers 200 now.
        var isReady: Bool { state.withLock { $0.ready } }

        /// Counts an answered request (a probe or not).
        func count(probe: Bool) {
            state.withLock { state in
                if probe { state.probes += 1 } else { state.requests += 1 }
            }
        }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let name: String
        let record: Record
        var uri = "/"

        init(name: String, record: Record) {
            self.name = name
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): uri = head.uri
            case .body: break
            case .end:
                let probe = uri == "/health/ready"
                let ok = !probe || record.isReady
                let body = probe ? "{\"status\":\"\(ok ? "ready" : "not_ready")\"}" : name
                var headers = HTTPHeaders([("Content-Length", String(body.utf8.count)), ("Content-Type", "text/plain")])
                if probe { headers.add(name: "Connection", value: "close") }
                let head = HTTPResponseHead(version: .http1_1, status: ok ? .ok : .serviceUnavailable, headers: headers)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
                // Counted once the answer is in the socket, so a test that sees the count may stop the replica.
                let record = record
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in record.count(probe: probe) }
                if probe { context.close(promise: nil) }
            }
        }
    }
}
