import Synchronization

/// A monotonic clock that only moves when a test says so, for the circuit breaker's open period.
final class ManualClock: Sendable {
    private let current = Mutex(ContinuousClock.now)

    /// The current instant.
    func now() -> ContinuousClock.Instant { current.withLock { $0 } }

    /// Moves the clock forward by `duration`.
    func advance(by duration: Duration) {
        current.withLock { $0 = $0 + duration }
    }
}
