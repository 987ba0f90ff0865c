import Metrics
import Synchronization

/// A circuit breaker for an outside service every caller shares (Open Food Facts): `failureThreshold` failed calls in
/// a row open it for `openDuration`, in which callers are refused at once; then one trial goes through, whose success
/// closes it and whose failure opens it again. Its state is the gauge `<name>_breaker_state`: 0 closed, 1 half-open,
/// 2 open.
final class ConsecutiveFailureBreaker: Sendable {
    private enum Circuit {
        case closed(failures: Int)
        case open(until: ContinuousClock.Instant)
        case halfOpen(trialRunning: Bool)
    }

    let failureThreshold: Int
    let openDuration: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let circuit: Mutex<Circuit>
    private let gauge: Gauge

    init(
        name: String, failureThreshold: Int, openDuration: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.openDuration = openDuration
        self.now = now
        circuit = Mutex(.closed(failures: 0))
        gauge = Gauge(label: "\(name)_breaker_state", factory: metrics)
        gauge.record(0)
    }

    /// Whether a call may go out now; when not, how long until one may. A half-open breaker lets one trial through.
    func admit() -> Duration? {
        let instant = now()
        return circuit.withLock { circuit in
            switch circuit {
            case .closed: return nil
            case .open(let until) where instant < until: return until - instant
            case .open:
                circuit = .halfOpen(trialRunning: true)
                gauge.record(1)
                return nil
            case .halfOpen(let trialRunning):
                if trialRunning { return .seconds(1) }
                circuit = .halfOpen(trialRunning: true)
                return nil
            }
        }
    }

    /// An admitted call succeeded.
    func succeeded() {
        circuit.withLock { circuit in
            circuit = .closed(failures: 0)
            gauge.record(0)
        }
    }

    /// An admitted call failed in a way that says the service is unwell.
    func failed() {
        let instant = now()
        circuit.withLock { circuit in
            switch circuit {
            case .closed(let failures) where failures + 1 < failureThreshold:
                circuit = .closed(failures: failures + 1)
            case .closed, .halfOpen, .open:
                circuit = .open(until: instant + openDuration)
                gauge.record(2)
            }
        }
    }

    /// An admitted call ended without saying anything about the service (cancelled): a half-open trial may run again.
    func abandoned() {
        circuit.withLock { circuit in
            if case .halfOpen = circuit { circuit = .halfOpen(trialRunning: false) }
        }
    }
}
