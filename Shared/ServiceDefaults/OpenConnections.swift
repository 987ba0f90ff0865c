import NIOConcurrencyHelpers
import NIOCore

/// The client connections a server has open, so that a stopping server can close those still open when its drain is
/// over: an idle keep-alive connection closes at the server's quiesce, but one with a half-sent request body, a reader
/// that does not take its answer, or a stream would hold the server (and the process's exit) for as long as the client
/// likes. Each connection's pipeline gets an `OpenConnectionHandler` (`handler()`).
public final class OpenConnections: Sendable {
    private let closers = NIOLockedValueBox<[ObjectIdentifier: @Sendable () -> Void]>([:])

    public init() {}

    /// A handler to put first among a server's additional channel handlers, so that its close reaches the socket
    /// whatever the handlers after it do with a close (the gateway's pass-through holds one until its exchange ends).
    public func handler() -> OpenConnectionHandler { OpenConnectionHandler(connections: self) }

    /// How many connections are open.
    public var count: Int { closers.withLockedValue { $0.count } }

    func opened(_ id: ObjectIdentifier, close: @escaping @Sendable () -> Void) {
        closers.withLockedValue { $0[id] = close }
    }

    func closed(_ id: ObjectIdentifier) {
        _ = closers.withLockedValue { $0.removeValue(forKey: id) }
    }

    /// Closes every open connection, whatever it is doing; returns how many there were.
    @discardableResult
    public func closeAll() -> Int {
        let open = closers.withLockedValue { Array($0.values) }
        for close in open { close() }
        return open.count
    }
}
