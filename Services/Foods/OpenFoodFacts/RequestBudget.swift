import Synchronization

/// A per-process allowance of requests a minute to an outside service (a token bucket refilled evenly over the
/// minute, holding at most a minute's worth): `take()` is false once it is spent, and the caller answers without asking.
final class RequestBudget: Sendable {
    private struct State {
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
    }

    let perMinute: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state: Mutex<State>

    init(perMinute: Int, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.perMinute = max(1, perMinute)
        self.now = now
        state = Mutex(State(tokens: Double(max(1, perMinute)), refilledAt: now()))
    }

    /// Takes one request from the budget; false when none is left this minute.
    func take() -> Bool {
        let instant = now()
        return state.withLock { state in
            let elapsed = state.refilledAt.duration(to: instant)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.tokens = min(Double(perMinute), state.tokens + seconds * Double(perMinute) / 60)
            state.refilledAt = instant
            guard state.tokens >= 1 else { return false }
            state.tokens -= 1
            return true
        }
    }

    /// Seconds until the next request is allowed (at least 1).
    var secondsUntilNext: Int { max(1, Int((60 / Double(perMinute)).rounded(.up))) }
}
