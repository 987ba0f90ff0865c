import Synchronization

/// How current this gateway's copy of the revocation list is: whether it has been loaded once (readiness waits for
/// that) and when the last poll succeeded. Shared by `RevocationPoller`, which writes it, and the health routes.
final class RevocationSync: Sendable {
    /// What readiness says about the revocations.
    enum State: String, Sendable {
        /// Never loaded: the gateway is not ready.
        case loading
        /// Loaded, and the last poll succeeded within the staleness bound.
        case current
        /// Loaded, but no poll has succeeded within the bound: sign-outs since then may not be known here.
        case stale
    }

    private let lastSuccess = Mutex<ContinuousClock.Instant?>(nil)
    let staleAfter: Duration

    init(staleAfter: Duration) {
        self.staleAfter = staleAfter
    }

    /// Records a successful poll at `now`.
    func succeeded(at now: ContinuousClock.Instant = .now) {
        lastSuccess.withLock { $0 = now }
    }

    /// Time since the last successful poll; nil before the first.
    func age(at now: ContinuousClock.Instant = .now) -> Duration? {
        lastSuccess.withLock { $0 }.map { now - $0 }
    }

    /// The state at `now`.
    func state(at now: ContinuousClock.Instant = .now) -> State {
        guard let age = age(at: now) else { return .loading }
        return age > staleAfter ? .stale : .current
    }
}
