import Logging
import Metrics
import PostgresSupport
import Synchronization

/// Whether the rate-limit store answers, as the last statement found it. The change to down is logged once per
/// outage (not per request) and the change back once; every failed statement counts in
/// `gateway_rate_limit_store_failures_total`, and `gateway_rate_limit_store_up` is 1 or 0.
final class RateLimitStoreStatus: Sendable {
    private enum State { case starting, up, down }

    private let state: Mutex<State>
    private let failures: Counter
    private let upGauge: Gauge
    private let logger: Logger

    /// `isUp` is the state before any statement ran: a gateway starts down until its migrations are applied (and
    /// logs a failure to apply them as an outage); tests of a working store start up.
    init(isUp: Bool, metrics: any MetricsFactory, logger: Logger) {
        self.state = Mutex(isUp ? .up : .starting)
        self.failures = Counter(label: "gateway_rate_limit_store_failures_total", factory: metrics)
        self.upGauge = Gauge(label: "gateway_rate_limit_store_up", factory: metrics)
        self.logger = logger
        upGauge.record(isUp ? 1 : 0)
    }

    /// Whether the last statement succeeded.
    var isUp: Bool { state.withLock { $0 == .up } }

    /// Whether no statement has run yet (the migrations not applied): the gateway cannot decide a fail-closed policy.
    var isStarting: Bool { state.withLock { $0 == .starting } }

    /// A statement succeeded.
    func succeeded() {
        let before = state.withLock { state in
            defer { state = .up }
            return state
        }
        guard before != .up else { return }
        upGauge.record(1)
        logger.notice("rate-limit store reachable: limits are shared across gateways")
    }

    /// A statement failed with `error`. A cancelled one (a request that went away, a shutdown) says nothing of the store.
    func failed(_ error: any Error) {
        guard !(error is CancellationError) else { return }
        failures.increment()
        let before = state.withLock { state in
            defer { state = .down }
            return state
        }
        guard before != .down else { return }
        upGauge.record(0)
        logger.error(
            "rate-limit store unreachable: fail-closed policies answer 503, the others count in this gateway only, until it answers",
            metadata: ["error": .string(LogSafeError.describe(error))])
    }
}
