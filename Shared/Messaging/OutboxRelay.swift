import Foundation
import Kafka
import Logging
import Metrics
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// Publishes the outbox's unsent rows to Kafka in id order (so per key in order), marks them sent with
/// the partition and offset the broker assigned, and retries with backoff while the broker is down.
/// Each message carries the `traceparent` of its publish span (`OutboxPublishSpans`) in its headers.
///
/// Wakes on the schema's `NOTIFY` channel, with polling as the fallback. A batch or a listen that waits on a database
/// connection lost under it is abandoned and tried again (`PostgresPool.abandoningIfStuck`), so that the relay
/// publishes again within seconds of a PostgreSQL restart and always stops when asked. Published rows are kept for
/// `retention` after their creation; when the broker gives a new message an offset it had already given on that
/// partition (its log was lost, as when an in-memory broker restarts), the retained rows are published again, in
/// a lane of their own: rows never published go first, so a write made after the loss reaches the consumers
/// within a batch instead of behind the whole retained window (a day of events took 16 s and more to go out again).
/// A repeat is a redelivery, which consumers' inboxes drop, and each lane keeps id order (so per key order).
public final class OutboxRelay: Service {
    private let client: PostgresPool
    private let producer: KafkaProducer
    private let schema: String
    private let settings: OutboxRelaySettings
    private let logger: Logger
    private let wake = WakeSignal()
    private let startAfter: StartupLatch?

    /// - Parameter startAfter: publishing begins once this opens (when the outbox table exists).
    public init(
        client: PostgresPool, producer: KafkaProducer, schema: String, settings: OutboxRelaySettings,
        startAfter: StartupLatch? = nil, logger: Logger
    ) {
        self.startAfter = startAfter
        self.client = client
        self.producer = producer
        self.schema = schema
        self.settings = settings
        self.logger = logger
    }

    public func run() async throws {
        if let startAfter {
            // A shutdown before the migrations ran must not leave the relay waiting forever.
            await withGracefulShutdownHandler {
                await startAfter.wait()
            } onGracefulShutdown: {
                startAfter.open()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listenForInserts() }
            await withGracefulShutdownHandler {
                await self.relayLoop()
            } onGracefulShutdown: {
                self.wake.signal()
            }
            group.cancelAll()
        }
    }

    private func relayLoop() async {
        var backoff = Backoff(initial: .milliseconds(100), maximum: settings.maxBackoff)
        var nextPurge = ContinuousClock.now
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let outcome = try await client.abandoningIfStuck(grace: settings.lostConnectionGrace) { try await self.publishBatch() }
                if let failure = outcome.failure { throw failure }
                backoff.reset()
                if outcome.published == settings.batchSize { continue }
                if ContinuousClock.now >= nextPurge {
                    nextPurge = ContinuousClock.now + .seconds(60)
                    try await purgeExpired()
                }
                await wake.wait(timeout: settings.pollInterval)
            } catch {
                let reason = (error as? KafkaError).map { FailureReason($0).rawValue } ?? "database"
                let wait = backoff.next()
                Counter(label: "outbox_publish_failures_total", dimensions: [("reason", reason)]).increment()
                logger.warning(
                    "outbox relay will retry",
                    metadata: ["error": .string(LogSafeError.describe(error)), "reason": .string(reason), "retry_in": "\(wait)"])
                if let kafkaError = error as? KafkaError, await recover(from: kafkaError) {
                    backoff.reset()
                    continue
                }
                await wake.wait(timeout: wait)
            }
        }
    }

    /// Acts on `ProducerRecovery`'s decision for a failed publish; true when the producer was replaced, so the
    /// next attempt can start at once.
    private func recover(from error: KafkaError) async -> Bool {
        let recovery = ProducerRecovery.after(error)
        var replaced = false
        if recovery == .replaceProducer {
            do {
                try await producer.renew(reason: FailureReason(error))
                replaced = true
            } catch {
                logger.error("Kafka producer could not be replaced", metadata: ["error": .string(LogSafeError.describe(error))])
            }
        }
        // A broker that restarted without its state has none of our topics: create those still to be published.
        if recovery != .retry, await producer.isBrokerReachable() {
            try? await recreateTopicsOfUnsentRows()
        }
        return replaced
    }

    /// Publishes up to one batch; returns how many rows were published and the first failure, if any.
    ///
    /// Each batch runs under the schema's relay lock, a transaction-level advisory lock: the replicas of a service
    /// publish one batch at a time, each the oldest unsent rows, so a user's events reach Kafka in the order they were
    /// written however many replicas relay. (Row locks alone, `FOR UPDATE SKIP LOCKED`, let a second replica publish
    /// the next rows while the first still publishes earlier ones.) A replica that finds the lock taken publishes
    /// nothing this round and tries again at its next wake; the lock goes with the transaction, so a replica that
    /// dies mid-batch frees it at once.
    func publishBatch() async throws -> (published: Int, failure: (any Error)?) {
        try await client.transaction(logger: logger) { connection in
            let lock = try await connection.query(
                "SELECT pg_try_advisory_xact_lock(hashtext(\(Self.lockKey(schema: schema))))", logger: logger)
            let leads = try await lock.decode(Bool.self).first { _ in true } ?? false
            Gauge(label: "outbox_relay_leader").record(leads ? 1 : 0)
            guard leads else { return (0, nil) }
            let rows = try await connection.query(
                """
                SELECT id, event_id, topic, message_key, payload, traceparent FROM outbox
                WHERE sent_at IS NULL ORDER BY (requeued_at IS NOT NULL), id LIMIT \(settings.batchSize) FOR UPDATE SKIP LOCKED
                """, logger: logger)
            var ids: [Int64] = []
            var eventIds: [UUID] = []
            var traceparents: [String?] = []
            var messages: [OutgoingMessage] = []
            for try await (id, eventId, topic, key, payload, traceparent) in rows.decode((Int64, UUID, String, String, ByteBuffer, String?).self) {
                ids.append(id)
                eventIds.append(eventId)
                traceparents.append(traceparent)
                messages.append(OutgoingMessage(topic: topic, key: key, value: Array(buffer: payload)))
            }
            if messages.isEmpty { return (0, nil) }

            var spans = OutboxPublishSpans()
            spans.start(&messages, eventIds: eventIds, traceparents: traceparents)
            let results = await producer.sendBatch(messages)
            spans.end(with: results)
            var sentIds: [Int64] = []
            var sentTopics: [String] = []
            var partitions: [Int32] = []
            var offsets: [Int64] = []
            var failure: (any Error)?
            for (id, result) in zip(ids, results) {
                switch result {
                case .success(let report):
                    sentIds.append(id)
                    sentTopics.append(report.topic)
                    partitions.append(report.partition)
                    offsets.append(report.offset)
                case .failure(let error):
                    failure = failure ?? error
                }
            }
            if !sentIds.isEmpty {
                let logWasLost = try await offsetsWentBackwards(
                    topics: sentTopics, partitions: partitions, offsets: offsets, on: connection)
                try await connection.query(
                    """
                    UPDATE outbox SET sent_at = now(), kafka_partition = d.p, kafka_offset = d.o, requeued_at = NULL
                    FROM unnest(\(sentIds)::bigint[], \(partitions)::integer[], \(offsets)::bigint[]) AS d(id, p, o)
                    WHERE outbox.id = d.id
                    """, logger: logger)
                if logWasLost { try await requeueRetained(on: connection) }
                // Idle consumers of these topics fetch again at once (`FetchPacing`), when this commits.
                try await PublishNotices.notify(Set(sentTopics), on: connection, logger: logger)
            }
            return (sentIds.count, failure)
        }
    }

    /// The advisory lock key (hashed) that serialises the relay's batches across the replicas of `schema`.
    static func lockKey(schema: String) -> String { "nutritionai.outbox_relay.\(schema)" }

    /// True when the broker gave a new message an offset at or below one it gave before on the same
    /// partition: its log was reset, and everything published before is gone.
    private func offsetsWentBackwards(
        topics: [String], partitions: [Int32], offsets: [Int64], on connection: PostgresConnection
    ) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT count(*) FROM unnest(\(topics)::text[], \(partitions)::integer[], \(offsets)::bigint[]) AS d(topic, p, o)
            WHERE EXISTS (
                SELECT 1 FROM outbox
                WHERE outbox.topic = d.topic AND outbox.kafka_partition = d.p AND outbox.kafka_offset >= d.o AND sent_at IS NOT NULL)
            """, logger: logger)
        return try await rows.decode(Int64.self).first { _ in true }.map { $0 > 0 } ?? false
    }

    /// Marks every retained published row unsent in the republish lane, so the relay publishes the window again in id
    /// order, after the rows never published.
    private func requeueRetained(on connection: PostgresConnection) async throws {
        let requeued =
            try await connection.query(
                """
                WITH requeued AS (
                    UPDATE outbox SET sent_at = NULL, kafka_partition = NULL, kafka_offset = NULL, requeued_at = now()
                    WHERE sent_at IS NOT NULL RETURNING 1)
                SELECT count(*) FROM requeued
                """, logger: logger
            ).decode(Int64.self).first { _ in true } ?? 0
        logger.warning(
            "broker lost its log (a new message got an offset it had already given); publishing the retained outbox again",
            metadata: ["rows": "\(requeued)"])
    }

    /// Creates the topics of the rows waiting to be published (already existing ones are left alone).
    private func recreateTopicsOfUnsentRows() async throws {
        let topics = try await client.query("SELECT DISTINCT topic FROM outbox WHERE sent_at IS NULL", logger: logger)
            .decode(String.self).reduce(into: [String]()) { $0.append($1) }
        try await producer.createTopics(topics, partitions: settings.topicPartitions)
    }

    private func purgeExpired() async throws {
        let cutoffSeconds = settings.retention.timeInterval
        try await client.query(
            "DELETE FROM outbox WHERE sent_at IS NOT NULL AND created_at < now() - make_interval(secs => \(cutoffSeconds))",
            logger: logger)
    }

    /// Holds one connection listening on `<schema>_outbox` and wakes the relay on every insert; reconnects on failure,
    /// and when the listen waits on a connection lost under it (a PostgreSQL restart), which would otherwise keep
    /// the relay on its polling fallback and its shutdown waiting for good.
    private func listenForInserts() async {
        // Each (re)connection signals too: a catch-up on anything inserted while not listening.
        await client.listen(to: "\(schema)_outbox", lostConnectionGrace: settings.lostConnectionGrace, logger: logger) { [wake] _ in
            wake.signal()
        }
    }
}
