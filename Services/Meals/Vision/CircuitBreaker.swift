import Foundation
import Metrics
import Synchronization

/// A circuit breaker that no single user can open for the others. Each failure is the failure of the user whose photo
/// it was. The server's circuit opens for `openDuration` once `failureThreshold` failures, with no success between
/// them and each within `window`, come from at least `minimumUsers` distinct users; then it turns half-open, and trials
/// go through one at a time: a success closes it, and it opens again once failed trials come from `minimumUsers` users
/// (a user whose trial failed is held back meanwhile). A user whose own photos failed `userFailureThreshold` times in
/// a row is held back alone for `openDuration` (`CallerFailures`). Only errors that say the provider is unwell count
/// (`VisionError.saysProviderIsUnwell`); any other answer, a photo without food included, is a success.
/// The server circuit's state is the gauge `vision_breaker_state`: 0 closed, 1 half-open, 2 open. An open circuit turns
/// half-open when the first call after `openDuration` arrives, so the gauge stays at 2 until then.
final class CircuitBreaker: Sendable {
    private struct Failure {
        var instant: ContinuousClock.Instant
        var caller: UUID
    }

    private enum Circuit {
        case closed(recentFailures: [Failure])
        case open(until: ContinuousClock.Instant)
        case halfOpen(trialRunning: Bool, failedCallers: Set<UUID>)
    }

    private struct State {
        var circuit: Circuit
        var callers: CallerFailures
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
    /// Failures remembered for the server's circuit at most; more than any threshold needs.
    static let rememberedFailures = 2048

    let failureThreshold: Int
    let minimumUsers: Int
    let window: Duration
    let openDuration: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state: Mutex<State>
    private let stateGauge: Gauge

    /// A closed breaker; `now` is injectable so tests can move time past `openDuration`, and `metrics` to read the gauge.
    init(
        failureThreshold: Int, minimumUsers: Int, window: Duration, userFailureThreshold: Int, openDuration: Duration,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.minimumUsers = max(1, minimumUsers)
        self.window = window
        self.openDuration = openDuration
        self.now = now
        state = Mutex(
            State(
                circuit: .closed(recentFailures: []),
                callers: CallerFailures(threshold: userFailureThreshold, window: window, openDuration: openDuration)))
        stateGauge = Gauge(label: "vision_breaker_state", factory: metrics)
        stateGauge.record(0)
    }

    /// Runs `operation` for `caller` unless the server's circuit is open or `caller` is held back, which throws
    /// `VisionError.circuitOpen` without running it. After cancellation nothing is counted: a caller who went away says
    /// nothing about the provider.
    func run<T>(for caller: UUID, _ operation: () async throws -> T) async throws -> T {
        if case .refused(let retryAfter) = admit(caller) { throw VisionError.circuitOpen(retryAfter: retryAfter) }
        do {
            let value = try await operation()
            record(.success, caller: caller)
            return value
        } catch let error as VisionError where !error.saysProviderIsUnwell {
            record(.success, caller: caller)
            throw error
        } catch {
            record(Task.isCancelled ? .abandoned : .failure, caller: caller)
            throw error
        }
    }

    private func admit(_ caller: UUID) -> Admission {
        let instant = now()
        return state.withLock { state in
            if let wait = state.callers.wait(of: caller, at: instant) { return .refused(retryAfter: wait) }
            switch state.circuit {
            case .closed:
                return .allowed
            case .open(let until):
                guard instant >= until else { return .refused(retryAfter: instant.duration(to: until)) }
                state.circuit = .halfOpen(trialRunning: true, failedCallers: [])
                stateGauge.record(Self.gaugeValue(of: state.circuit))
                return .allowed
            case .halfOpen(let trialRunning, let failedCallers):
                guard !trialRunning else { return .refused(retryAfter: Self.trialRetryAfter) }
                state.circuit = .halfOpen(trialRunning: true, failedCallers: failedCallers)
                return .allowed
            }
        }
    }

    /// A success closes the circuit and forgets the caller's failures; a failure counts for the caller and towards
    /// the server's threshold, or towards reopening after failed trials; an abandoned call only frees the trial slot.
    private func record(_ outcome: Outcome, caller: UUID) {
        let instant = now()
        state.withLock { state in
            switch outcome {
            case .success:
                state.callers.succeeded(caller)
                state.circuit = .closed(recentFailures: [])
            case .failure:
                state.callers.failed(caller, at: instant)
                state.circuit = afterFailure(of: caller, at: instant, in: state.circuit, callers: &state.callers)
            case .abandoned:
                if case .halfOpen(_, let failedCallers) = state.circuit {
                    state.circuit = .halfOpen(trialRunning: false, failedCallers: failedCallers)
                }
            }
            // Under the lock, so that the gauge never shows an older state than the last change.
            stateGauge.record(Self.gaugeValue(of: state.circuit))
        }
    }

    private func afterFailure(
        of caller: UUID, at instant: ContinuousClock.Instant, in circuit: Circuit, callers: inout CallerFailures
    ) -> Circuit {
        switch circuit {
        case .closed(var recent):
            recent.removeAll { $0.instant.duration(to: instant) > window }
            recent.append(Failure(instant: instant, caller: caller))
            if recent.count > Self.rememberedFailures { recent.removeFirst(recent.count - Self.rememberedFailures) }
            let users = Set(recent.map(\.caller)).count
            return recent.count >= failureThreshold && users >= minimumUsers ? .open(until: instant + openDuration) : .closed(recentFailures: recent)
        case .halfOpen(_, var failedCallers):
            failedCallers.insert(caller)
            guard failedCallers.count < minimumUsers else { return .open(until: instant + openDuration) }
            callers.holdBack(caller, at: instant)
            return .halfOpen(trialRunning: false, failedCallers: failedCallers)
        case .open:
            return circuit
        }
    }

    private static func gaugeValue(of circuit: Circuit) -> Int {
        switch circuit {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        }
    }
}
