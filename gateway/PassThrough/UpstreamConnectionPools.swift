import NIOCore
import Synchronization

/// The pass-through's connection pools, one per event loop (`UpstreamConnectionPool`), made when a loop first needs
/// one. A client connection looks its loop's pool up once, when it opens.
final class UpstreamConnectionPools: Sendable {
    let connectTimeout: TimeAmount
    private let pools = Mutex<[ObjectIdentifier: NIOLoopBound<UpstreamConnectionPool>]>([:])

    init(connectTimeout: Duration) {
        self.connectTimeout = .init(connectTimeout)
    }

    /// The pool of `eventLoop`; call it on that loop.
    func pool(for eventLoop: any EventLoop) -> UpstreamConnectionPool {
        let bound = pools.withLock { pools in
            let key = ObjectIdentifier(eventLoop)
            if let pool = pools[key] { return pool }
            let pool = NIOLoopBound(UpstreamConnectionPool(eventLoop: eventLoop, connectTimeout: connectTimeout), eventLoop: eventLoop)
            pools[key] = pool
            return pool
        }
        return bound.value
    }
}
