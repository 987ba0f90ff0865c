import NIOConcurrencyHelpers

/// Lets one waiter sleep until it is signalled or a timeout passes; a signal sent while nobody waits is kept.
public final class WakeSignal: Sendable {
    public init() {}

    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Wakes the waiter, or the next one if none waits now.
    public func signal() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the first signal, after `timeout`, or when the waiting task is cancelled, whichever comes first.
    public func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { self.signal() }
            }
            // Cancelling the waiter cancels the timer too, which then stays silent: wake the waiter here instead.
            await withTaskCancellationHandler {
                await waitForSignal()
            } onCancel: {
                self.signal()
            }
            group.cancelAll()
        }
    }

    private func waitForSignal() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Bool in
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
