import Foundation
import PostgresSupport
import Synchronization

/// The share requests of this replica that wait for a meal's first event, each with a signal that this replica's
/// consumer fires once the meal's event has committed; at most `capacity` wait at once, and at most `perUser` of one
/// user, so that one user asking for meals that never come cannot keep everyone else's shares from waiting.
final class MealArrivals: Sendable {
    let capacity: Int
    let perUser: Int

    private struct State {
        var waiters: [UUID: [ObjectIdentifier: WakeSignal]] = [:]
        var count = 0
        var byUser: [UUID: Int] = [:]
    }

    private let state = Mutex(State())

    init(capacity: Int, perUser: Int) {
        self.capacity = max(1, capacity)
        self.perUser = max(1, perUser)
    }

    /// Runs `operation` with a signal fired whenever an event of `mealId` commits here, for as long as it runs; nil
    /// without running it when `capacity` requests, or `perUser` of `userId`'s, wait already.
    func waiting<Value: Sendable>(
        for mealId: UUID, of userId: UUID, _ operation: (WakeSignal) async throws -> Value
    ) async throws -> Value? {
        let signal = WakeSignal()
        let key = ObjectIdentifier(signal)
        let admitted = state.withLock { state -> Bool in
            guard state.count < capacity, state.byUser[userId, default: 0] < perUser else { return false }
            state.count += 1
            state.byUser[userId, default: 0] += 1
            state.waiters[mealId, default: [:]][key] = signal
            return true
        }
        guard admitted else { return nil }
        defer {
            state.withLock { state in
                state.count -= 1
                state.byUser[userId, default: 1] -= 1
                if state.byUser[userId] == 0 { state.byUser[userId] = nil }
                state.waiters[mealId]?[key] = nil
                if state.waiters[mealId]?.isEmpty == true { state.waiters[mealId] = nil }
            }
        }
        return try await operation(signal)
    }

    /// Wakes every request waiting for one of `mealIds`.
    func arrived(_ mealIds: some Sequence<UUID>) {
        let signals = state.withLock { state in mealIds.flatMap { state.waiters[$0]?.values.map { $0 } ?? [] } }
        for signal in signals { signal.signal() }
    }

    /// How many requests wait for `mealId` now.
    func waitingCount(for mealId: UUID) -> Int {
        state.withLock { $0.waiters[mealId]?.count ?? 0 }
    }
}
