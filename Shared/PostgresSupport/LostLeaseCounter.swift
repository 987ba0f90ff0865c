import PostgresNIO
import Synchronization

/// Counts the connections of a pool that close while leased (server restart, terminated backend, dropped socket).
final class LostLeaseCounter: Sendable {
    private let lost = Atomic<Int>(0)

    var count: Int { lost.load(ordering: .relaxed) }

    /// Watches `connection` for the length of one lease; call `end()` when the lease ends.
    func watch(_ connection: PostgresConnection) -> Lease {
        let lease = Lease()
        connection.closeFuture.whenComplete { _ in
            if lease.isActive { self.lost.add(1, ordering: .relaxed) }
        }
        return lease
    }

    /// One lease of a connection: active until `end()`.
    final class Lease: Sendable {
        private let active = Atomic<Bool>(true)

        var isActive: Bool { active.load(ordering: .relaxed) }

        func end() { active.store(false, ordering: .relaxed) }
    }
}
