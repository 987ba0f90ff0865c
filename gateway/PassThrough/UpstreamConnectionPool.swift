import NIOCore
import NIOPosix

/// Kept-alive HTTP/1.1 connections from one event loop to the upstream services. Each event loop of the gateway has
/// its own pool (`UpstreamConnectionPools`), used only on that loop: a request and its upstream exchange never leave
/// the thread its client's connection lives on, and no lock is taken.
final class UpstreamConnectionPool {
    /// An upstream connection, the address it goes to and the handler that passes its answers on.
    struct Connection {
        let channel: any Channel
        let address: UpstreamAddress
        let relay: UpstreamResponseRelay

        /// The connection of a channel `connect` made to `address`; call it on the channel's event loop.
        init(channel: any Channel, address: UpstreamAddress) throws {
            self.channel = channel
            self.address = address
            self.relay = try channel.pipeline.syncOperations.handler(type: UpstreamResponseRelay.self)
        }
    }

    let eventLoop: any EventLoop
    let connectTimeout: TimeAmount
    /// At most this many idle connections are kept per upstream; more are closed when handed back.
    let maxIdlePerUpstream: Int
    private var idle: [UpstreamAddress: [Connection]] = [:]

    init(eventLoop: any EventLoop, connectTimeout: TimeAmount, maxIdlePerUpstream: Int = 128) {
        self.eventLoop = eventLoop
        self.connectTimeout = connectTimeout
        self.maxIdlePerUpstream = maxIdlePerUpstream
    }

    /// The most recently used idle connection to `upstream` that is still open, if any.
    func takeIdle(to upstream: UpstreamAddress) -> Connection? {
        eventLoop.preconditionInEventLoop()
        while let connection = idle[upstream]?.popLast() {
            connection.relay.onIdleClose = nil
            if connection.channel.isActive { return connection }
        }
        return nil
    }

    /// A new connection to `upstream`, made on this pool's event loop (see `Connection.init(channel:)`).
    func connect(to upstream: UpstreamAddress) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Bytes both ways: the requests as `UpstreamRequestBytes` writes them (every name and value comes
                    // from the client's request as the HTTP parser and HTTPTypes checked it, or is one the gateway
                    // made), the answers read by the relay's parser.
                    try channel.pipeline.syncOperations.addHandler(UpstreamResponseRelay())
                }
            }
            .connect(host: upstream.host, port: upstream.port)
    }

    /// Keeps `connection` for the next request to its address, or closes it when enough are kept.
    func giveBack(_ connection: Connection) {
        eventLoop.preconditionInEventLoop()
        let upstream = connection.address
        connection.relay.exchange = nil
        guard connection.channel.isActive, connection.relay.isReusable, idle[upstream, default: []].count < maxIdlePerUpstream else {
            connection.channel.close(promise: nil)
            return
        }
        let channel = connection.channel
        connection.relay.onIdleClose = { [weak self] in
            self?.idle[upstream]?.removeAll { $0.channel === channel }
        }
        idle[upstream, default: []].append(connection)
    }
}
