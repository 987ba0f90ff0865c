import Metrics
import Synchronization

/// The state of one connection pool as metrics: `postgres_pool_connections{pool, state="in_use"|"idle"}`,
/// `postgres_pool_waiters{pool}` and `postgres_pool_connections_max{pool}`. Leases and waiters are counted by
/// `PostgresPool` around every use our code makes; open connections come from the pool's own connection events
/// (`PostgresPoolObserver`), since postgres-nio reports neither leases nor waiting requests.
/// Every gauge is set under the lock that guards the counts, so no two threads can leave one showing an old value.
final class PostgresPoolUsage: Sendable {
    /// What the gauges show.
    struct Counts: Equatable {
        /// Connections open or being opened, by postgres-nio's connection id.
        var open: Set<String> = []
        /// Leases held by our code.
        var inUse = 0
        /// Callers waiting for a lease.
        var waiting = 0

        /// Open connections not leased; a connection dropped while still leased makes `inUse` exceed `open` briefly.
        var idle: Int { max(0, open.count - inUse) }
    }

    private let counts = Mutex(Counts())
    private let inUseGauge: Gauge
    private let idleGauge: Gauge
    private let waitersGauge: Gauge

    init(pool: String, maximumConnections: Int, metrics: any MetricsFactory) {
        inUseGauge = Gauge(label: "postgres_pool_connections", dimensions: [("pool", pool), ("state", "in_use")], factory: metrics)
        idleGauge = Gauge(label: "postgres_pool_connections", dimensions: [("pool", pool), ("state", "idle")], factory: metrics)
        waitersGauge = Gauge(label: "postgres_pool_waiters", dimensions: [("pool", pool)], factory: metrics)
        Gauge(label: "postgres_pool_connections_max", dimensions: [("pool", pool)], factory: metrics).record(maximumConnections)
        update { _ in }
    }

    /// The counts now.
    var current: Counts { counts.withLock { $0 } }

    /// A caller asks for a connection.
    func requested() { update { $0.waiting += 1 } }

    /// A waiting caller got its connection.
    func leased() {
        update { counts in
            counts.waiting -= 1
            counts.inUse += 1
        }
    }

    /// A caller is done with its connection.
    func released() { update { $0.inUse -= 1 } }

    /// A waiting caller left without a connection (cancelled, or the pool failed to connect).
    func abandoned() { update { $0.waiting -= 1 } }

    /// The pool started opening connection `id`.
    func opening(_ id: String) { update { _ = $0.open.insert(id) } }

    /// Connection `id` closed, or could not be opened.
    func closed(_ id: String) { update { _ = $0.open.remove(id) } }

    private func update(_ change: (inout Counts) -> Void) {
        counts.withLock { counts in
            change(&counts)
            inUseGauge.record(counts.inUse)
            idleGauge.record(counts.idle)
            waitersGauge.record(counts.waiting)
        }
    }
}
