import EventContracts
import Foundation
import Kafka
import Logging
import Metrics
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import Tracing
import WireJSON

/// Reads a consumer group's messages and applies each exactly once: the inbox row and the effect commit
/// in one transaction, and the Kafka offset is committed only afterwards. Redelivered events find their
/// id in the inbox and change nothing.
///
/// Messages already fetched are applied in batches (up to `batchLimit`) in one transaction with one offset
/// commit, so a backlog costs one database commit and one broker round trip per batch instead of per event:
/// one statement records the batch's ids, and the new events go to the handler's batch entry point together.
/// When anything in a batch fails or is rejected, the batch rolls back and its events are applied one by
/// one, each retried with backoff until applied or parked.
///
/// Nothing is skipped: an event the handler rejects (a `dataschemaversion` it does not read, an unreadable or invalid
/// payload) or whose envelope cannot be read is parked (`ParkedEvents`) in the transaction that records it in the
/// inbox, and the partition moves on. While one of a user's events is parked, that user's later events are parked
/// behind it, so each user's events still apply in order. `ParkedEventRetry` applies them at start and every
/// `parkedRetryInterval`: after an upgrade that reads them, they apply once each, in order.
///
/// While tracing is on, each event is a consumer span (`process meal.consumed`), child of the publish span named
/// by the message's `traceparent` header; an event applied on its own has its `SQL transaction` spans below it,
/// while the events of a batch share one transaction (whose statements serve them all, under none of them) and
/// their spans run from the batch's start to its commit.
public final class InboxConsumer: Service {
    private let client: PostgresPool
    private let consumer: KafkaConsumer
    private let handler: any EventHandler
    private let logger: Logger
    private let maxBackoff: Duration
    private let batchLimit: Int
    private let startAfter: StartupLatch?
    private let lostConnectionGrace: Duration
    private let parked: ParkedEvents
    private let retry: ParkedEventRetry

    /// - Parameter startAfter: opened when the schema's migrations are applied; nothing is read before.
    public init(
        client: PostgresPool, consumer: KafkaConsumer, handler: any EventHandler, logger: Logger, maxBackoff: Duration = .seconds(2),
        batchLimit: Int = 200, startAfter: StartupLatch? = nil, lostConnectionGrace: Duration = .seconds(1),
        parkedRetryInterval: Duration = .seconds(60)
    ) {
        self.parked = ParkedEvents(logger: logger)
        self.retry = ParkedEventRetry(client: client, handler: handler, group: consumer.groupId, interval: parkedRetryInterval, logger: logger)
        self.lostConnectionGrace = lostConnectionGrace
        self.startAfter = startAfter
        self.client = client
        self.consumer = consumer
        self.handler = handler
        self.logger = logger
        self.maxBackoff = maxBackoff
        self.batchLimit = max(1, batchLimit)
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                await self.startAfter?.wait()
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { await self.retry.run() }
                    if self.consumer.pausesWhenIdle {
                        let listener = PublishNoticeListener(
                            client: self.client, consumer: self.consumer, lostConnectionGrace: self.lostConnectionGrace, logger: self.logger)
                        tasks.addTask { await listener.run() }
                    }
                    while true {
                        let batch = try await self.consumer.nextBatch(limit: self.batchLimit)
                        if batch.isEmpty { break }
                        try await self.processAbandoningStuck(batch)
                    }
                    tasks.cancelAll()
                }
            }
        } catch is CancellationError {}
        await consumer.close()
    }

    /// Applies `batch`, abandoning and retrying an attempt that waits on a connection lost under it
    /// (`PostgresPool.abandoningIfStuck`): postgres-nio 1.33 never answers a query written to a connection that has
    /// already closed, so such an attempt would hold the consumer for good (after a PostgreSQL restart, trends applied
    /// nothing until it was restarted). An attempt is abandoned when the pool has lost a leased connection since it
    /// started and it has not finished `lostConnectionGrace` later, and cancelled: one that was only retrying stops,
    /// a stuck one stays blocked, holding nothing but that dead connection's lease. The retry applies each event
    /// exactly once, as any redelivery does (the inbox). At shutdown a healthy attempt finishes first, so that the
    /// consumer is not closed under its commit.
    func processAbandoningStuck(_ batch: [KafkaMessage]) async throws {
        while true {
            do {
                return try await client.abandoningIfStuck(grace: lostConnectionGrace, finishingOnCancel: true) {
                    try await self.process(batch)
                }
            } catch is PostgresConnectionLost {
                Counter(label: "inbox_abandoned_attempts_total", dimensions: [("group", consumer.groupId)]).increment()
                logger.warning(
                    "inbox attempt waits on a lost database connection; abandoning it and applying the batch again",
                    metadata: ["events": "\(batch.count)"])
            }
        }
    }

    /// Applies a batch of messages, then commits their offsets. A message without a readable envelope is parked in its
    /// place: the events read before it are applied (or parked) first, so a user's events keep their order.
    func process(_ messages: [KafkaMessage]) async throws {
        var events: [ReceivedEvent] = []
        for message in messages {
            guard let header = try? EventCoding.header(of: message.value) else {
                try await applyInOrder(events)
                events = []
                try await parkUnreadable(message)
                continue
            }
            events.append(
                ReceivedEvent(
                    header: header, bytes: message.value, traceparent: message.header(TraceContext.traceparent) ?? header.traceparent,
                    position: MessagePosition(of: message)))
        }
        try await applyInOrder(events)
        try await commitQuietly(messages)
    }

    /// Applies `events` together in one transaction, or when that fails one by one.
    private func applyInOrder(_ events: [ReceivedEvent]) async throws {
        if events.count > 1, let results = try await applyTogether(events) {
            for (event, result) in zip(events, results) { count(event, result) }
            return
        }
        for event in events {
            guard TraceContext.isTracing else {
                _ = try await applyWithRetries(event)
                continue
            }
            try await TracedOperation.run(
                "process \(event.header.type)", parent: TraceContext.context(traceparent: event.traceparent), ofKind: .consumer
            ) { span in
                describe(event, in: span)
                span.attributes["inbox.result"] = try await applyWithRetries(event)
            }
        }
    }

    /// One transaction for every event: one inbox insert for all their ids, then the new ones go to the handler's batch
    /// entry point; nil (everything rolled back) when anything fails or is rejected. Returns each event's result.
    private func applyTogether(_ events: [ReceivedEvent]) async throws -> [String]? {
        let spans = TraceContext.isTracing ? events.map(startBatchSpan) : []
        do {
            let results = try await client.transaction(logger: logger) { connection in
                let fresh = try await recordNew(events, on: connection)
                let blocked = try await parked.blocked(Set(fresh.map { events[$0].header.subject }), on: connection)
                var results = events.map { _ in "duplicate" }
                var applied: [ReceivedEvent] = []
                for index in fresh.sorted() {
                    if blocked.contains(events[index].header.subject) {
                        try await parkBehind(events[index], on: connection)
                        results[index] = "parked"
                    } else {
                        applied.append(events[index])
                        results[index] = "applied"
                    }
                }
                try await handler.handle(batch: applied, on: connection, logger: logger)
                return results
            }
            handler.committed(zip(events, results).filter { $0.1 == "applied" }.map(\.0))
            for (span, result) in zip(spans, results) {
                span.attributes["inbox.result"] = result
                span.end()
            }
            return results
        } catch let error as CancellationError {
            for span in spans { span.end() }
            throw error
        } catch {
            for span in spans {
                span.attributes["inbox.result"] = "batch_rolled_back"
                span.end()
            }
            logger.debug("batch rolled back; applying its events one by one", metadata: ["error": .string(LogSafeError.describe(error))])
            return nil
        }
    }

    /// Records the ids of `events` in the inbox in one statement; returns the positions of the events seen for the
    /// first time (of an id repeated within the batch, its first occurrence).
    private func recordNew(_ events: [ReceivedEvent], on connection: PostgresConnection) async throws -> Set<Int> {
        let ids = events.map(\.header.id), types = events.map(\.header.type)
        let rows = try await connection.query(
            """
            INSERT INTO inbox (event_id, event_type) SELECT * FROM unnest(\(ids)::uuid[], \(types)::text[])
            ON CONFLICT (event_id) DO NOTHING RETURNING event_id
            """, logger: logger)
        var inserted = Set<UUID>()
        for try await id in rows.decode(UUID.self) { inserted.insert(id) }
        var fresh = Set<Int>()
        for (index, id) in ids.enumerated() where inserted.remove(id) != nil { fresh.insert(index) }
        return fresh
    }

    /// The consumer span of an event applied in a batch of `events.count`, started with the batch.
    private func startBatchSpan(_ event: ReceivedEvent) -> any Span {
        let span = startSpan("process \(event.header.type)", context: TraceContext.context(traceparent: event.traceparent), ofKind: .consumer)
        describe(event, in: span)
        return span
    }

    /// The messaging attributes of an event's consumer span.
    private func describe(_ event: ReceivedEvent, in span: any Span) {
        span.attributes["messaging.system"] = "kafka"
        span.attributes["messaging.operation.type"] = "process"
        span.attributes["messaging.destination.name"] = event.header.type
        span.attributes["messaging.consumer.group.name"] = consumer.groupId
        span.attributes["messaging.message.id"] = event.header.id.lowercasedString
    }

    /// Applies one event in its own transaction, retrying with backoff until it is applied or parked, or the task is
    /// cancelled; returns what happened (`applied`, `duplicate`, `parked`).
    @discardableResult
    private func applyWithRetries(_ event: ReceivedEvent) async throws -> String {
        do {
            let result = try await Backoff.retrying(
                Backoff(initial: .milliseconds(100), maximum: maxBackoff),
                isRetryable: { !($0 is EventRejected) },
                onFailure: { error, wait in
                    count(event, "retried")
                    logger.warning(
                        "event not applied yet; will retry",
                        metadata: [
                            "event_id": .string(event.header.id.lowercasedString), "error": .string(LogSafeError.describe(error)),
                            "retry_in": "\(wait)",
                        ])
                }
            ) { try await client.transaction(logger: logger) { connection in try await self.apply(event, on: connection) } }
            if result == "applied" { handler.committed([event]) }
            count(event, result)
            return result
        } catch let rejection as EventRejected {
            return try await park(event, reason: rejection.reason)
        }
    }

    /// Records the id and applies the effect if the id was new; returns what happened. A rejection is thrown,
    /// so that the transaction rolls back whatever the handler wrote before it.
    private func apply(_ event: ReceivedEvent, on connection: PostgresConnection) async throws -> String {
        guard try await Self.record(event.header, on: connection, logger: logger) else { return "duplicate" }
        if try await !parked.blocked([event.header.subject], on: connection).isEmpty {
            try await parkBehind(event, on: connection)
            return "parked"
        }
        try await handler.handle(event, on: connection, logger: logger)
        return "applied"
    }

    /// Records the event's id in the inbox; false when it was there already (applied or parked before).
    static func record(_ header: EventHeader, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query(
            """
            INSERT INTO inbox (event_id, event_type) VALUES (\(header.id), \(header.type))
            ON CONFLICT (event_id) DO NOTHING RETURNING event_id
            """, logger: logger
        ).decode(UUID.self).first { _ in true } != nil
    }

    /// Where a parked event was read; a test's event handed over without a message is parked under its type.
    private func position(of event: ReceivedEvent) -> MessagePosition {
        event.position ?? MessagePosition(topic: event.header.type, partition: -1, offset: -1)
    }

    /// Parks an event its handler rejected: its inbox row and its parked row commit together (retried while the database
    /// is away). Returns `parked`, or `duplicate` when the inbox already had it.
    private func park(_ event: ReceivedEvent, reason: String) async throws -> String {
        let readAt = position(of: event)
        let wasParked = try await retryingWhileDatabaseAway {
            try await client.transaction(logger: logger) { connection in
                try await parked.recordAndPark(event, at: readAt, reason: reason, on: connection)
            }
        }
        guard wasParked else {
            count(event, "duplicate")
            return "duplicate"
        }
        logger.error(
            "event parked: it cannot be applied now",
            metadata: [
                "event_id": .string(event.header.id.lowercasedString), "type": .string(event.header.type),
                "dataschemaversion": "\(event.header.dataschemaversion)", "reason": .string(reason),
            ])
        count(event, "parked")
        return "parked"
    }

    /// Parks an event, new to the inbox in this transaction, behind an earlier parked event of its subject.
    private func parkBehind(_ event: ReceivedEvent, on connection: PostgresConnection) async throws {
        try await parked.park(event, at: position(of: event), reason: "waits behind an earlier parked event of its subject", on: connection)
    }

    /// Parks a message whose envelope cannot be read, so that a later binary that reads it can apply it.
    private func parkUnreadable(_ message: KafkaMessage) async throws {
        let wasParked = try await retryingWhileDatabaseAway {
            try await client.transaction(logger: logger) { connection in
                try await parked.parkUnreadable(message, reason: "unreadable envelope", on: connection)
            }
        }
        guard wasParked else { return }
        logger.error(
            "event parked: its envelope cannot be read",
            metadata: ["topic": .string(message.topic), "partition": "\(message.partition)", "offset": "\(message.offset)"])
        countParked(topic: message.topic)
    }

    /// Runs `operation` until it succeeds, with the inbox's backoff.
    private func retryingWhileDatabaseAway<T>(_ operation: () async throws -> T) async throws -> T {
        try await Backoff.retrying(
            Backoff(initial: .milliseconds(100), maximum: maxBackoff),
            onFailure: { error, wait in
                logger.warning(
                    "event not parked yet; will retry", metadata: ["error": .string(LogSafeError.describe(error)), "retry_in": "\(wait)"])
            }, operation)
    }

    /// Counts a parked event in `events_parked_total{group,topic}` and `inbox_events_total{topic,result="parked"}`.
    private func countParked(topic: String) {
        Counter(label: "events_parked_total", dimensions: [("group", consumer.groupId), ("topic", topic)]).increment()
        Counter(label: "inbox_events_total", dimensions: [("topic", topic), ("result", "parked")]).increment()
    }

    /// Counts one outcome in `inbox_events_total{topic,result}`: `applied`, `duplicate` (skipped, already applied),
    /// `parked` (kept in `parked_events` until it can be applied) or `retried` (one failed attempt).
    private func count(_ event: ReceivedEvent, _ result: String) {
        guard result != "parked" else { return countParked(topic: position(of: event).topic) }
        Counter(label: "inbox_events_total", dimensions: [("topic", event.header.type), ("result", result)]).increment()
    }

    private func commitQuietly(_ messages: [KafkaMessage]) async throws {
        do {
            try await consumer.commit(messages)
        } catch {
            // The effect is already recorded; a lost commit only means a harmless redelivery.
            logger.debug("offset commit failed", metadata: ["error": .string(LogSafeError.describe(error))])
        }
    }
}
