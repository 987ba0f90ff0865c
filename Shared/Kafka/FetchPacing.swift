/// When an idle consumer stops fetching, and when it fetches again: the decisions only (inputs in, an action out),
/// which `KafkaConsumer` applies by pausing or resuming its assigned partitions.
///
/// A fetch costs the broker work whether or not there is data: the local broker (Tansu 0.6) answers a fetch only at
/// the end of its wait, so each idle consumer sent it about 47 fetches a second (docs/PERFORMANCE.md, "The stack at
/// rest"). A consumer that has read nothing for `idleAfter` pauses its partitions (no fetch is sent; heartbeats go
/// on) until it is woken (`woken`: a relay said it published to one of its topics), a message arrives anyway, or a
/// check every `recheck` finds messages it has not read (`checked`: the partitions' ends asked of the broker, which
/// costs no fetch), in case a wake-up was missed. Pausing is off with an `idleAfter` of zero, the setting for a Kafka
/// cluster, whose long fetches return as soon as data arrives.
public struct FetchPacing: Sendable, Equatable {
    /// What the consumer must do to its partitions.
    public enum Action: Sendable, Equatable {
        case none
        case pause
        case resume
        /// Ask the broker whether the paused partitions have unread messages, and tell `checked`.
        case checkForUnread
    }

    public let idleAfter: Duration
    public let recheck: Duration
    /// Whether the partitions are paused now.
    public private(set) var isPaused = false
    /// The partitions the last pause applied to (`paused(_:)`): what a resume or a check for unread messages covers.
    public private(set) var pausedPartitions: Set<TopicPartition> = []
    private var fetchUntil: ContinuousClock.Instant
    private var pausedAt: ContinuousClock.Instant?

    /// Starts fetching, as a consumer that has just joined has something to catch up on.
    public init(idleAfter: Duration, recheck: Duration, now: ContinuousClock.Instant) {
        self.idleAfter = idleAfter
        self.recheck = recheck
        self.fetchUntil = now + idleAfter
    }

    /// Whether the consumer ever pauses.
    public var isEnabled: Bool { idleAfter > .zero }

    /// A message arrived: keep fetching for `idleAfter` (resuming, should it come from a fetch sent before a pause).
    public mutating func received(at now: ContinuousClock.Instant) -> Action {
        fetchUntil = max(fetchUntil, now + idleAfter)
        return resumeIfPaused()
    }

    /// Told that one of its topics has new messages: fetch now and for `idleAfter`.
    public mutating func woken(at now: ContinuousClock.Instant) -> Action {
        fetchUntil = max(fetchUntil, now + idleAfter)
        return resumeIfPaused()
    }

    /// A poll found nothing: pause once idle for `idleAfter`; while paused, check for unread messages every `recheck`.
    /// `assigned` is the consumer's assignment now, `readToEnd` whether it has read each of those partitions to its end
    /// as last heard. Unsettled (no partitions, partitions other than those it paused, or one behind its end) it
    /// never pauses, and a paused consumer fetches again for `idleAfter`: librdkafka keeps a partition paused across
    /// a rebalance, so a consumer that rejoined its group after a stall would otherwise sit on its backlog until the
    /// recheck.
    public mutating func idle(at now: ContinuousClock.Instant, assigned: Set<TopicPartition>, readToEnd: Bool) -> Action {
        guard isEnabled else { return .none }
        let settled = !assigned.isEmpty && (isPaused ? pausedPartitions == assigned : readToEnd)
        guard settled else {
            fetchUntil = max(fetchUntil, now + idleAfter)
            return resumeIfPaused()
        }
        if isPaused {
            guard let pausedAt, now - pausedAt >= recheck else { return .none }
            self.pausedAt = now
            return .checkForUnread
        }
        guard now >= fetchUntil else { return .none }
        isPaused = true
        pausedAt = now
        return .pause
    }

    /// The partitions a `pause` applied to.
    public mutating func paused(_ partitions: Set<TopicPartition>) {
        pausedPartitions = partitions
    }

    /// What a `checkForUnread` found: with unread messages, fetch now and for `idleAfter`.
    public mutating func checked(unread: Bool, at now: ContinuousClock.Instant) -> Action {
        guard unread else { return .none }
        fetchUntil = max(fetchUntil, now + idleAfter)
        return resumeIfPaused()
    }

    /// How long the consumer may wait for a message before `idle` has something to decide: until its fetching
    /// ends, or until the recheck while paused. Never shorter than `floor` (each wait is a thread hop), never longer
    /// than `ceiling` (how soon a closed or cancelled consumer notices).
    public func untilNextDecision(at now: ContinuousClock.Instant, floor: Duration, ceiling: Duration) -> Duration {
        guard isEnabled else { return ceiling }
        let next = isPaused ? (pausedAt ?? now) + recheck : fetchUntil
        return min(ceiling, max(floor, next - now))
    }

    private mutating func resumeIfPaused() -> Action {
        guard isPaused else { return .none }
        isPaused = false
        pausedAt = nil
        return .resume
    }
}
