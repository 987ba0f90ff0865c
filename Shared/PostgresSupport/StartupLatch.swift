import NIOConcurrencyHelpers

/// Opens once (when the schema's migrations are applied); everything that needs the tables waits on it.
public final class StartupLatch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Opens the latch and releases every waiter. Idempotent.
    public func open() {
        let waiters = state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLockedValue { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
