import Foundation
import PostgresSupport
import ServiceLifecycle
import Synchronization

/// The requests of this replica that wait for an event of some key (a meal, a user's profile) that this service has
/// not consumed yet, each with a signal that this replica's consumer fires once such an event has committed
/// (`EventHandler.committed`); at most `capacity` wait at once, and at most `perUser` of one user, so that one user
/// waiting for events that never come cannot keep everyone else's requests from waiting.
public final class EventArrivals<Key: Hashable & Sendable>: Sendable {
    public let capacity: Int
    public let perUser: Int

    private struct State {
        var waiters: [Key: [ObjectIdentifier: WakeSignal]] = [:]
        var count = 0
        var byUser: [UUID: Int] = [:]
    }

    private let state = Mutex(State())

    public init(capacity: Int, perUser: Int) {
        self.capacity = max(1, capacity)
        self.perUser = max(1, perUser)
    }

    /// What `lookup` finds, reading again whenever an event of `key` commits here and every `recheck` (for an event
    /// another replica's consumer stored), until `limit` has passed or the server begins to stop: `.notYet` then,
    /// `.full` without waiting when `capacity` requests, or `perUser` of `userId`'s, wait already. A cancelled wait
    /// throws `CancellationError` at once.
    public func wait<Value: Sendable>(
        for key: Key, of userId: UUID, limit: Duration, recheck: Duration, lookup: () async throws -> Value?
    ) async throws -> ArrivalOutcome<Value> {
        if let known = try await lookup() { return .found(known) }
        guard limit > .zero else { return .notYet }
        let deadline = ContinuousClock.now + limit
        let waited = try await waiting(for: key, of: userId) { signal -> Value? in
            try await withGracefulShutdownHandler { () async throws -> Value? in
                while true {
                    // Read after registering: an event committed before the registration is found here, a later one
                    // fires the signal.
                    if let known = try await lookup() { return known }
                    let remaining = deadline - ContinuousClock.now
                    guard remaining > .zero, !Task.isShuttingDownGracefully else { return nil }
                    await signal.wait(timeout: min(recheck, remaining))
                    try Task.checkCancellation()
                }
            } onGracefulShutdown: {
                signal.signal()
            }
        }
        switch waited {
        case .none: return .full
        case .some(.none): return .notYet
        case .some(.some(let value)): return .found(value)
        }
    }

    /// Runs `operation` with a signal fired whenever an event of `key` commits here, for as long as it runs; nil
    /// without running it when `capacity` requests, or `perUser` of `userId`'s, wait already.
    public func waiting<Value: Sendable>(
        for key: Key, of userId: UUID, _ operation: (WakeSignal) async throws -> Value
    ) async throws -> Value? {
        let signal = WakeSignal()
        let slot = ObjectIdentifier(signal)
        let admitted = state.withLock { state -> Bool in
            guard state.count < capacity, state.byUser[userId, default: 0] < perUser else { return false }
            state.count += 1
            state.byUser[userId, default: 0] += 1
            state.waiters[key, default: [:]][slot] = signal
            return true
        }
        guard admitted else { return nil }
        defer {
            state.withLock { state in
                state.count -= 1
                state.byUser[userId, default: 1] -= 1
                if state.byUser[userId] == 0 { state.byUser[userId] = nil }
                state.waiters[key]?[slot] = nil
                if state.waiters[key]?.isEmpty == true { state.waiters[key] = nil }
            }
        }
        return try await operation(signal)
    }

    /// Wakes every request waiting for one of `keys`.
    public func arrived(_ keys: some Sequence<Key>) {
        let signals = state.withLock { state in keys.flatMap { state.waiters[$0]?.values.map { $0 } ?? [] } }
        for signal in signals { signal.signal() }
    }

    /// How many requests wait for `key` now.
    public func waitingCount(for key: Key) -> Int {
        state.withLock { $0.waiters[key]?.count ?? 0 }
    }
}
