import Configuration
import PostgresSupport

/// When the events readiness check calls the flow of events degraded; read from `events.*` keys
/// (`EVENTS_STUCK_AFTER_SECONDS`, `EVENTS_SAMPLE_INTERVAL_SECONDS`).
public struct EventFlowSettings: Sendable, Equatable {
    /// How long an outbox row may wait unsent, a consumer may stay without partitions, or a lagging partition
    /// may stay without progress before events count as degraded.
    public var stuckAfter: Duration
    /// How often the outbox and the consumers are sampled (for readiness and the gauges).
    public var sampleInterval: Duration

    public init(stuckAfter: Duration = .seconds(30), sampleInterval: Duration = .seconds(5)) {
        self.stuckAfter = stuckAfter
        self.sampleInterval = sampleInterval
    }

    /// Reads the settings with the defaults above.
    public init(config: ConfigReader) {
        self.init(
            stuckAfter: .seconds(config.double(forKey: "events.stuck.after.seconds", default: 30)),
            sampleInterval: .seconds(config.double(forKey: "events.sample.interval.seconds", default: 5)))
    }
}
