import Kafka
import Logging
import Messaging
import Metrics
import NIOConcurrencyHelpers
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// Samples a service's outbox and consumers every `sampleInterval`: publishes what it sees as gauges, and
/// answers the `events` readiness check with the verdict of `EventFlowTracker` (`up` or `degraded`).
///
/// Gauges: `outbox_unsent_rows{topic}`, `outbox_oldest_unsent_age_seconds{topic}`,
/// `kafka_consumer_assigned_partitions{group}`, `kafka_consumer_lag{group,topic,partition}`,
/// `events_parked{group,topic}` (events a consumer parked and has not applied yet) and `events_flow_degraded`
/// (1 while the verdict is degraded).
public final class EventFlowMonitor: Service, ReadinessCheck, @unchecked Sendable {
    // @unchecked: every mutable member is locked.
    public let name = "events"
    private let outbox: PostgresPool?
    private let publishedTopics: [String]
    private let settings: EventFlowSettings
    private let logger: Logger
    private let consumers = NIOLockedValueBox<[(consumer: KafkaConsumer, parkedIn: PostgresPool?)]>([])
    private let tracker: NIOLockedValueBox<EventFlowTracker>
    private let latest = NIOLockedValueBox(EventFlowVerdict(reasons: []))
    /// Lag gauges set in the last sample, so that a partition that moved away is set back to zero.
    private let reportedPartitions = NIOLockedValueBox<Set<EventFlowTracker.PartitionKey>>([])
    /// Parked gauges set in the last sample (group, topic), set back to zero once nothing of theirs is parked.
    private let reportedParked = NIOLockedValueBox<Set<[String]>>([])

    /// - Parameters:
    ///   - outbox: the client of the schema whose outbox to watch, or nil when the service publishes nothing.
    ///   - publishedTopics: the outbox's topics, reported as zero when nothing waits.
    public init(outbox: PostgresPool?, publishedTopics: [String], settings: EventFlowSettings, logger: Logger) {
        self.outbox = outbox
        self.publishedTopics = publishedTopics
        self.settings = settings
        self.logger = logger
        self.tracker = NIOLockedValueBox(EventFlowTracker(stuckAfter: settings.stuckAfter))
    }

    /// Adds a consumer to watch, and the schema whose `parked_events` it parks into (nil: none); call while composing
    /// the service, before it runs.
    public func watch(_ consumer: KafkaConsumer, parkedEventsIn schema: PostgresPool? = nil) {
        consumers.withLockedValue { $0.append((consumer, schema)) }
        // Until the first sample, a consumer has no partitions yet: readiness says so from the start.
        latest.withLockedValue { $0 = EventFlowVerdict(reasons: $0.reasons, waitingGroups: $0.waitingGroups + [consumer.groupId]) }
    }

    public func state() async -> ReadinessState { latest.withLockedValue { $0.state } }

    /// The verdict of the last sample.
    public var verdict: EventFlowVerdict { latest.withLockedValue { $0 } }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    await self.sample()
                    try await Task.sleep(for: self.settings.sampleInterval)
                }
            }
        } catch is CancellationError {}
    }

    /// Takes one sample now: updates the gauges and the verdict, and logs when the verdict changes.
    @discardableResult
    public func sample() async -> EventFlowVerdict {
        let backlog = await readBacklog()
        var statuses: [(group: String, status: ConsumerStatus)] = []
        var parked: [ParkedBacklog] = []
        for (consumer, schema) in consumers.withLockedValue({ $0 }) {
            statuses.append((consumer.groupId, await consumer.status()))
            if let schema { parked += await readParked(of: consumer.groupId, in: schema) }
        }
        publish(backlog: backlog, statuses: statuses)
        publish(parked: parked)
        let verdict = tracker.withLockedValue { $0.assess(backlog: backlog, consumers: statuses, parked: parked, now: .now) }
        let previous = latest.withLockedValue { latest in
            defer { latest = verdict }
            return latest
        }
        Gauge(label: "events_flow_degraded").record(verdict.state == .degraded ? 1 : 0)
        if verdict.state != previous.state || (verdict.state == .degraded && verdict.reasons.count != previous.reasons.count) {
            switch verdict.state {
            case .degraded:
                logger.warning("events are not flowing", metadata: ["reasons": .array(verdict.reasons.map { .string($0) })])
            case .waiting:
                logger.notice(
                    "waiting for partitions (joining the consumer group)",
                    metadata: ["groups": .array(verdict.waitingGroups.map { .string($0) })])
            case .up, .down:
                logger.notice(previous.state == .waiting ? "partitions assigned; events flow" : "events flow again")
            }
        }
        return verdict
    }

    /// Unsent rows per topic, or nil when the outbox cannot be read now.
    private func readBacklog() async -> [OutboxBacklog]? {
        guard let outbox else { return [] }
        do {
            let rows = try await outbox.query(
                """
                SELECT topic, count(*), EXTRACT(EPOCH FROM now() - min(coalesce(requeued_at, created_at)))::float8
                FROM outbox WHERE sent_at IS NULL GROUP BY topic
                """, logger: logger)
            var backlog: [OutboxBacklog] = []
            for try await (topic, unsent, age) in rows.decode((String, Int64, Double).self) {
                backlog.append(OutboxBacklog(topic: topic, unsent: unsent, oldestAge: .milliseconds(Int64(max(0, age) * 1000))))
            }
            return backlog
        } catch {
            logger.debug("outbox backlog not readable now", metadata: ["error": .string(LogSafeError.describe(error))])
            return nil
        }
    }

    /// The group's parked events per topic; none when they cannot be read now (the database's check reports that).
    private func readParked(of group: String, in schema: PostgresPool) async -> [ParkedBacklog] {
        do {
            return try await ParkedEvents.backlog(of: group, in: schema, logger: logger)
        } catch {
            logger.debug("parked events not readable now", metadata: ["error": .string(LogSafeError.describe(error))])
            return []
        }
    }

    private func publish(parked: [ParkedBacklog]) {
        var reported: Set<[String]> = []
        for entry in parked {
            reported.insert([entry.group, entry.topic])
            Gauge(label: "events_parked", dimensions: [("group", entry.group), ("topic", entry.topic)]).record(entry.parked)
        }
        let gone = reportedParked.withLockedValue { previous in
            defer { previous = reported }
            return previous.subtracting(reported)
        }
        for key in gone { Gauge(label: "events_parked", dimensions: [("group", key[0]), ("topic", key[1])]).record(0) }
    }

    private func publish(backlog: [OutboxBacklog]?, statuses: [(group: String, status: ConsumerStatus)]) {
        if let backlog {
            let byTopic = Dictionary(backlog.map { ($0.topic, $0) }) { first, _ in first }
            for topic in Set(publishedTopics).union(byTopic.keys) {
                let entry = byTopic[topic]
                Gauge(label: "outbox_unsent_rows", dimensions: [("topic", topic)]).record(entry?.unsent ?? 0)
                Gauge(label: "outbox_oldest_unsent_age_seconds", dimensions: [("topic", topic)])
                    .record(entry?.oldestAge.timeInterval ?? 0)
            }
        }
        var reported: Set<EventFlowTracker.PartitionKey> = []
        for (group, status) in statuses {
            Gauge(label: "kafka_consumer_assigned_partitions", dimensions: [("group", group)]).record(status.assigned.count)
            for partition in status.assigned {
                let key = EventFlowTracker.PartitionKey(group: group, topic: partition.topic, partition: partition.partition)
                reported.insert(key)
                lagGauge(key).record(partition.lag ?? 0)
            }
        }
        let gone = reportedPartitions.withLockedValue { previous in
            defer { previous = reported }
            return previous.subtracting(reported)
        }
        for key in gone { lagGauge(key).record(0) }
    }

    private func lagGauge(_ key: EventFlowTracker.PartitionKey) -> Gauge {
        Gauge(label: "kafka_consumer_lag", dimensions: [("group", key.group), ("topic", key.topic), ("partition", String(key.partition))])
    }
}
