import PostgresSupport
import ServiceDefaults

/// Whether a service's events flow, and if not, why (for the readiness check and the log).
public struct EventFlowVerdict: Sendable, Equatable {
    /// `up`, `waiting` or `degraded`; events that do not flow never make a service unable to answer reads.
    public var state: ReadinessState
    /// One sentence per finding, e.g. `outbox meal.analyzed: 12 rows unsent, the oldest for 41 s`.
    public var reasons: [String]

    /// The consumer groups of this replica that have no partition yet (not for long enough to be a finding).
    public var waitingGroups: [String]

    /// `degraded` with any reason, else `waiting` while a group waits for its partitions, else `up`.
    public init(reasons: [String], waitingGroups: [String] = []) {
        self.state = !reasons.isEmpty ? .degraded : waitingGroups.isEmpty ? .up : .waiting
        self.reasons = reasons
        self.waitingGroups = waitingGroups
    }
}
