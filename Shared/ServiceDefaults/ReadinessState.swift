/// What one readiness check says about its dependency.
public enum ReadinessState: String, Sendable, Codable, Equatable {
    /// Works as it should.
    case up
    /// Answers, but late or partly: the service can still serve what it has (reads), so it stays ready,
    /// but operators must see it (events not flowing, a backlog that does not shrink).
    case degraded
    /// Serves, and is still taking up its share of background work: a replica whose consumers have not been given
    /// their partitions yet (joining the group, or a rebalance). Stays ready, like `degraded`; becomes `degraded` when
    /// it lasts.
    case waiting
    /// Does not answer: the service cannot do its work and must not be sent requests.
    case down
}
