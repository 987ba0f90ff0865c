import Metrics
import Synchronization

/// A consecutive-failure circuit breaker: closed until `failureThreshold` operations in a row fail, then open
/// for `openDuration`, refusing at once; then half-open, letting one trial through whose outcome closes or reopens it.
/// Its state is the gauge `vision_breaker_state`: 0 closed, 1 half-open, 2 open. An open circuit turns half-open
/// when the first call after `openDuration` arrives, so the gauge stays at 2 until then.
final class CircuitBreaker: Sendable {
    private enum State {
        case closed(consecutiveFailures: Int)
        case open(until: ContinuousClock.Instant)
        case halfOpen(trialRunning: Bool)
    }

    private enum Admission {
        case allowed
        case refused(retryAfter: Duration)
    }

    private enum Outcome {
        case success, failure, abandoned
    }

    /// While the half-open trial runs, other callers are told to ask again after this.
    static let trialRetryAfter = Duration.seconds(1)

    let failureThreshold: Int
    let openDuration: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State.closed(consecutiveFailures: 0))
    private let stateGauge: Gauge

    /// A closed breaker; `now` is injectable so tests can move time past `openDuration`, and `metrics` to read the gauge.
    init(
        failureThreshold: Int, openDuration: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.openDuration = openDuration
        self.now = now
        self.stateGauge = Gauge(label: "vision_breaker_state", factory: metrics)
        stateGauge.record(0)
    }

    /// Runs `operation` unless the circuit is open, which throws `VisionError.circuitOpen` without running it.
    /// Any error counts as a failure, except after cancellation: a caller who went away says nothing about the provider.
    func run<T>(_ operation: () async throws -> T) async throws -> T {
        if case .refused(let retryAfter) = admit() { throw VisionError.circuitOpen(retryAfter: retryAfter) }
        do {
            let value = try await operation()
            record(.success)
            return value
        } catch {
            record(Task.isCancelled ? .abandoned : .failure)
            throw error
        }
    }

    private func admit() -> Admission {
        let instant = now()
        return state.withLock { state in
            switch state {
            case .closed:
                return .allowed
            case .open(let until):
                guard instant >= until else { return .refused(retryAfter: instant.duration(to: until)) }
                state = .halfOpen(trialRunning: true)
                stateGauge.record(Self.gaugeValue(of: state))
                return .allowed
            case .halfOpen(let trialRunning):
                guard !trialRunning else { return .refused(retryAfter: Self.trialRetryAfter) }
                state = .halfOpen(trialRunning: true)
                return .allowed
            }
        }
    }

    /// A success closes the circuit; a failure counts towards the threshold, or reopens it after a failed trial;
    /// an abandoned call only frees the trial slot.
    private func record(_ outcome: Outcome) {
        let openUntil = now() + openDuration
        state.withLock { state in
            switch (outcome, state) {
            case (.success, _):
                state = .closed(consecutiveFailures: 0)
            case (.failure, .closed(let failures)):
                state = failures + 1 >= failureThreshold ? .open(until: openUntil) : .closed(consecutiveFailures: failures + 1)
            case (.failure, .halfOpen):
                state = .open(until: openUntil)
            case (.abandoned, .halfOpen):
                state = .halfOpen(trialRunning: false)
            case (.failure, .open), (.abandoned, .closed), (.abandoned, .open):
                break
            }
            // Under the lock, so that the gauge never shows an older state than the last change.
            stateGauge.record(Self.gaugeValue(of: state))
        }
    }

    private static func gaugeValue(of state: State) -> Int {
        switch state {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        }
    }
}
