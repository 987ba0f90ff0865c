import Foundation
import Logging
import PostgresSupport
import ServiceLifecycle
import Synchronization

/// Counts the views of shared links in memory and writes them in one statement every `interval`, so that a view
/// costs no write of its own. A failed write keeps the views for the next round; a graceful shutdown writes what
/// is left after the HTTP server has stopped (the service runs before the application in the group, so it stops
/// after it). The trade-off: a process killed outright loses the views of its last `interval`, and other replicas
/// see a link's count up to `interval` late (this replica writes before its owner's list). Bounded: past
/// `maxPendingLinks` distinct links the view that finds the buffer full writes it at once. With nothing counted it
/// sleeps until a view arrives, so an idle service has no timer here.
final class ViewCounter: Service, Sendable {
    private let store: any SharingStore
    private let pending = Mutex<[String: PendingViews]>([:])
    /// Signalled when the buffer stops being empty.
    private let viewsArrived = WakeSignal()
    let interval: Duration
    let maxPendingLinks: Int
    private let logger: Logger

    init(store: any SharingStore, interval: Duration, maxPendingLinks: Int = 10_000, logger: Logger) {
        self.store = store
        self.interval = interval
        self.maxPendingLinks = max(1, maxPendingLinks)
        self.logger = logger
    }

    /// Counts one view of `token` at `now`; writes the buffer first when it already holds `maxPendingLinks` links.
    func record(_ token: String, now: Date, logger: Logger) async throws {
        let (full, first) = pending.withLock { pending -> (Bool, Bool) in
            if let views = pending[token] {
                pending[token] = views.adding(PendingViews(count: 1, lastViewedAt: now))
                return (false, false)
            }
            guard pending.count < maxPendingLinks else { return (true, false) }
            pending[token] = PendingViews(count: 1, lastViewedAt: now)
            return (false, pending.count == 1)
        }
        if first { viewsArrived.signal() }
        guard full else { return }
        try await flush(logger: logger)
        try await record(token, now: now, logger: logger)
    }

    /// Writes every view counted so far; on failure they are kept for the next write and the error is thrown.
    func flush(logger: Logger) async throws {
        let views = pending.withLock { pending in
            let taken = pending
            pending.removeAll(keepingCapacity: true)
            return taken
        }
        guard !views.isEmpty else { return }
        do {
            try await store.addViews(views, logger: logger)
        } catch {
            pending.withLock { pending in pending.merge(views) { $0.adding($1) } }
            throw error
        }
    }

    /// Views not yet written (for tests and metrics).
    var pendingViewCount: Int { pending.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            // A shutdown or cancellation ends either wait; the last write below takes what is left.
            try? await cancelWhenGracefulShutdown { [viewsArrived] in await viewsArrived.wait(timeout: .seconds(3600)) }
            try? await cancelWhenGracefulShutdown { [interval] in try await Task.sleep(for: interval) }
            await flushLogged()
            // Views a failed write kept wait for the next round, not for the next view.
            if pendingViewCount > 0 { viewsArrived.signal() }
        }
        await flushLogged()
    }

    private func flushLogged() async {
        do {
            try await flush(logger: logger)
        } catch {
            logger.warning(
                "view counts not written; kept for the next round", metadata: ["error": .string(LogSafeError.describe(error))])
        }
    }
}
