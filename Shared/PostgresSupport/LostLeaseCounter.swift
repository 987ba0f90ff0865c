import PostgresNIO
import Synchronization

/// Counts the connections of a pool that close while leased (server restart, terminated backend, dropped socket).
/// Each connection is watched once, from its first lease until it closes.
final class LostLeaseCounter: Sendable {
    private struct State {
        /// Connections whose close is watched: every connection leased at least once and not closed yet.
        var watched: Set<PostgresConnection.ID> = []
        /// Connections leased now.
        var leased: Set<PostgresConnection.ID> = []
        var lost = 0
        /// Tasks waiting for the next loss (`waitForLoss(beyond:)`), by a serial of their own.
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.lost } }

    /// `connection` is leased from now until `released(_:)`.
    func leased(_ connection: PostgresConnection) {
        let id = connection.id
        let firstLease = state.withLock { state in
            state.leased.insert(id)
            return state.watched.insert(id).inserted
        }
        guard firstLease else { return }
        connection.closeFuture.whenComplete { _ in
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.watched.remove(id)
                guard state.leased.remove(id) != nil else { return [] }
                state.lost += 1
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Returns once more than `count` connections were lost while leased, or when the waiting task is cancelled: a
    /// watch without a timer (`PostgresPool.abandoningIfStuck`).
    func waitForLoss(beyond count: Int) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.lost > count || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    func released(_ connection: PostgresConnection) {
        _ = state.withLock { $0.leased.remove(connection.id) }
    }
}
