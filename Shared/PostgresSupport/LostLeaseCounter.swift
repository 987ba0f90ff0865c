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
            self.state.withLock { state in
                state.watched.remove(id)
                if state.leased.remove(id) != nil { state.lost += 1 }
            }
        }
    }

    func released(_ connection: PostgresConnection) {
        _ = state.withLock { $0.leased.remove(connection.id) }
    }
}
