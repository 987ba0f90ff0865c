/// When an idle consumer stops fetching, and when it fetches again: the decisions only (inputs in, an action out),
/// which `KafkaConsumer` applies by pausing or resuming its assigned partitions.
///
/// A fetch costs the broker work whether or not there is data: the local broker (Tansu 0.6) answers a fetch only at
/// the end of its wait, so each idle consumer sent it about 47 fetches a second (docs/PERFORMANCE.md, "The stack at
/// rest"). A consumer that has read nothing for `idleAfter` pauses its partitions (no fetch is sent; heartbeats go
/// on) until it is woken (`woken`: a relay said it published to one of its topics), a message arrives anyway, or
/// `recheck` has passed, when it fetches for `recheckWindow` (a fetch or two) in case a wake-up was missed. Pausing is off with an
/// `idleAfter` of zero, the setting for a Kafka cluster, whose long fetches return as soon as data arrives.
public struct FetchPacing: Sendable, Equatable {
    /// What the consumer must do to its partitions.
    public enum Action: Sendable, Equatable {
        case none
        case pause
        case resume
    }

    public let idleAfter: Duration
    public let recheck: Duration
    public let recheckWindow: Duration
    /// Whether the partitions are paused now (as far as this state knows: a rebalance resumes new ones, which the
    /// next recheck pauses again).
    public private(set) var isPaused = false
    private var fetchUntil: ContinuousClock.Instant
    private var pausedAt: ContinuousClock.Instant?

    /// Starts fetching, as a consumer that has just joined has something to catch up on.
    public init(idleAfter: Duration, recheck: Duration, recheckWindow: Duration = .milliseconds(100), now: ContinuousClock.Instant) {
        self.idleAfter = idleAfter
        self.recheck = recheck
        self.recheckWindow = recheckWindow
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

    /// A poll found nothing: pause once idle for `idleAfter`; while paused, fetch for `recheckWindow` every `recheck`.
    public mutating func idle(at now: ContinuousClock.Instant) -> Action {
        guard isEnabled else { return .none }
        if isPaused {
            guard let pausedAt, now - pausedAt >= recheck else { return .none }
            fetchUntil = now + recheckWindow
            return resumeIfPaused()
        }
        guard now >= fetchUntil else { return .none }
        isPaused = true
        pausedAt = now
        return .pause
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
