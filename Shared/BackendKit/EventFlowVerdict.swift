import PostgresSupport
import ServiceDefaults

/// Whether a service's events flow, and if not, why (for the readiness check and the log).
public struct EventFlowVerdict: Sendable, Equatable {
    /// `up` or `degraded`; events that do not flow never make a service unable to answer reads.
    public var state: ReadinessState
    /// One sentence per finding, e.g. `outbox meal.analyzed: 12 rows unsent, the oldest for 41 s`.
    public var reasons: [String]

    public init(reasons: [String]) {
        self.state = reasons.isEmpty ? .up : .degraded
        self.reasons = reasons
    }
}
