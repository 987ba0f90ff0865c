import Configuration

/// Tuning of the outbox relay; read from `outbox.*` keys (`OUTBOX_POLL_INTERVAL_SECONDS`, ...).
public struct OutboxRelaySettings: Sendable, Equatable {
    /// Rows published per round trip.
    public var batchSize: Int
    /// How often the relay looks for rows when no `NOTIFY` arrives (the fallback for lost notifications).
    public var pollInterval: Duration
    /// How long published rows are kept after their creation, so they can be published again if the broker loses its log.
    public var retention: Duration
    /// The longest pause between attempts while the broker or database is down: short, so that events flow
    /// again within seconds of the broker answering.
    public var maxBackoff: Duration
    /// Partitions of a topic the relay has to (re)create because the broker does not have it.
    public var topicPartitions: Int32
    /// How long a batch or the listen may go on after the pool lost a leased connection before it is abandoned and
    /// tried again (`PostgresPool.abandoningIfStuck`).
    public var lostConnectionGrace: Duration

    public init(
        batchSize: Int = 200, pollInterval: Duration = .seconds(30), retention: Duration = .seconds(24 * 3600),
        maxBackoff: Duration = .seconds(2), topicPartitions: Int32 = 3, lostConnectionGrace: Duration = .seconds(1)
    ) {
        self.topicPartitions = topicPartitions
        self.lostConnectionGrace = lostConnectionGrace
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        self.retention = retention
        self.maxBackoff = maxBackoff
    }

    /// Reads the settings with the defaults above.
    public init(config: ConfigReader) {
        self.init(
            batchSize: config.int(forKey: "outbox.batch.size", default: 200),
            pollInterval: .seconds(config.double(forKey: "outbox.poll.interval.seconds", default: 30)),
            retention: .seconds(config.double(forKey: "outbox.retention.hours", default: 24) * 3600),
            maxBackoff: .seconds(config.double(forKey: "outbox.max.backoff.seconds", default: 2)),
            topicPartitions: Int32(config.int(forKey: "kafka.topic.partitions", default: 3)),
            lostConnectionGrace: .seconds(config.double(forKey: "outbox.lost.connection.grace.seconds", default: 1)))
    }
}
