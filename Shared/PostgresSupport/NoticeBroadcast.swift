import NIOConcurrencyHelpers

/// Lets any number of waiters sleep until the next notice or a timeout. A waiter first reads `generation`, then looks
/// for work, then waits for a notice after that generation: a notice sent between the reading and the waiting ends the
/// wait at once, so nothing sent meanwhile is slept through (where `WakeSignal` keeps one pending signal for one waiter).
public final class NoticeBroadcast: Sendable {
    public init() {}

    private struct State {
        var generation: UInt64 = 0
        var closed = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters whose timeout or cancellation came before they were suspended: they return at once when they are.
        var abandoned: Set<UInt64> = []
    }

    private let state = NIOLockedValueBox(State())

    /// The count of notices so far; pass it to `wait(after:timeout:)`.
    public var generation: UInt64 { state.withLockedValue { $0.generation } }

    /// Wakes every waiter.
    public func notify() {
        let waiters = state.withLockedValue { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Wakes every waiter and makes every later wait return at once (the service that sends the notices has stopped).
    public func close() {
        state.withLockedValue { $0.closed = true }
        notify()
    }

    /// Returns at the first notice after `seen` (at once if there was one already), after `timeout`, when the waiting
    /// task is cancelled or when the broadcast is closed, whichever comes first.
    public func wait(after seen: UInt64, timeout: Duration) async {
        let id = state.withLockedValue { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { self.abandon(id) }
            }
            await withTaskCancellationHandler {
                await suspend(id, after: seen)
            } onCancel: {
                self.abandon(id)
            }
            group.cancelAll()
        }
        // The timer may have abandoned this waiter after a notice resumed it.
        state.withLockedValue { _ = $0.abandoned.remove(id) }
    }

    private func suspend(_ id: UInt64, after seen: UInt64) async {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                if state.closed || state.generation != seen || state.abandoned.remove(id) != nil { return true }
                state.waiters[id] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func abandon(_ id: UInt64) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            state.abandoned.insert(id)
            return nil
        }
        waiter?.resume()
    }
}
