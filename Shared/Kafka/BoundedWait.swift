import NIOConcurrencyHelpers

/// Waits for work that may never finish (a librdkafka call blocked on a broker that does not answer) for at most a
/// given time, so that a stopping process is never held by it.
enum BoundedWait {
    /// Runs `work` in a task of its own and waits for it at most `limit`, or until the waiting task is cancelled;
    /// true when it finished in that time. Work that outlives the wait goes on in the background, unobserved.
    static func finishes(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let state = NIOLockedValueBox(WaitState())
        @Sendable func settle(_ finished: Bool) {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
                guard state.outcome == nil else { return nil }
                state.outcome = finished
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: finished)
        }
        Task.detached {
            await work()
            settle(true)
        }
        let timer = Task.detached {
            try? await Task.sleep(for: limit)
            settle(false)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let settled = state.withLockedValue { state -> Bool? in
                    if let outcome = state.outcome { return outcome }
                    state.waiter = continuation
                    return nil
                }
                if let settled { continuation.resume(returning: settled) }
            }
        } onCancel: {
            settle(false)
        }
    }

    /// Whether the work finished (or the wait ended first), and who waits to hear it.
    private struct WaitState {
        var outcome: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }
}
