import EventContracts
import Foundation
import Kafka
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// The SQL of a consuming schema's `parked_events` table (`Migration.parkedEvents`): events received but not applied,
/// kept whole until a retry applies them.
///
/// An event is parked when it cannot be applied (`EventRejected`: a newer `dataschemaversion`, an unreadable or
/// invalid payload), or when an earlier event of the same subject (user) is parked, so that a user's events are
/// applied in the order they were read. A parked event's id is in the inbox as well, recorded in the same transaction,
/// so a redelivery is a duplicate; the parked row is what says it still has to be applied.
public struct ParkedEvents: Sendable {
    /// One parked row as read for a retry.
    public struct Row: Sendable, Equatable {
        public var seq: Int64
        public var eventId: UUID
        /// The topic it was read from.
        public var topic: String
        public var subject: String
        public var payload: [UInt8]
        public var traceparent: String?
    }

    /// Most rows one retry round reads.
    static let pageSize = 500

    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// The subjects among `subjects` that have a parked event: their later events must be parked behind it.
    func blocked(_ subjects: Set<String>, on connection: PostgresConnection) async throws -> Set<String> {
        guard !subjects.isEmpty else { return [] }
        let rows = try await connection.query(
            "SELECT DISTINCT subject FROM parked_events WHERE subject = ANY(\(Array(subjects)))", logger: logger)
        var blocked = Set<String>()
        for try await subject in rows.decode(String.self) { blocked.insert(subject) }
        return blocked
    }

    /// Parks `event`, read from `message`, whose id the inbox already holds (in this transaction).
    func park(_ event: ReceivedEvent, at position: MessagePosition, reason: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO parked_events (event_id, topic, kafka_partition, kafka_offset, subject, event_type, dataschemaversion,
                payload, traceparent, reason)
            VALUES (\(event.header.id), \(position.topic), \(position.partition), \(position.offset), \(event.header.subject),
                \(event.header.type), \(event.header.dataschemaversion), \(ByteBuffer(bytes: event.bytes)), \(event.traceparent), \(reason))
            ON CONFLICT (event_id) DO NOTHING
            """, logger: logger)
    }

    /// Records the id of an event in the inbox and parks it, in one statement; does nothing when the inbox already had
    /// it (it was applied or parked before). Returns whether it was parked.
    func recordAndPark(_ event: ReceivedEvent, at position: MessagePosition, reason: String, on connection: PostgresConnection)
        async throws -> Bool
    {
        let rows = try await connection.query(
            """
            WITH recorded AS (
                INSERT INTO inbox (event_id, event_type) VALUES (\(event.header.id), \(event.header.type))
                ON CONFLICT (event_id) DO NOTHING RETURNING event_id
            )
            INSERT INTO parked_events (event_id, topic, kafka_partition, kafka_offset, subject, event_type, dataschemaversion,
                payload, traceparent, reason)
            SELECT event_id, \(position.topic), \(position.partition), \(position.offset), \(event.header.subject),
                \(event.header.type), \(event.header.dataschemaversion), \(ByteBuffer(bytes: event.bytes)), \(event.traceparent), \(reason)
            FROM recorded
            RETURNING seq
            """, logger: logger)
        return try await rows.decode(Int64.self).first { _ in true } != nil
    }

    /// Parks a message whose envelope cannot be read: its id is the md5 of its bytes (so a redelivery is a duplicate),
    /// its subject the message key. Returns whether it was parked (false: seen before).
    func parkUnreadable(_ message: KafkaMessage, reason: String, on connection: PostgresConnection) async throws -> Bool {
        let key = message.key.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let rows = try await connection.query(
            """
            WITH recorded AS (
                INSERT INTO inbox (event_id, event_type) VALUES (md5(\(ByteBuffer(bytes: message.value)))::uuid, \(message.topic))
                ON CONFLICT (event_id) DO NOTHING RETURNING event_id
            )
            INSERT INTO parked_events (event_id, topic, kafka_partition, kafka_offset, subject, payload, traceparent, reason)
            SELECT event_id, \(message.topic), \(message.partition), \(message.offset), \(key), \(ByteBuffer(bytes: message.value)),
                \(message.header(TraceContext.traceparent)), \(reason)
            FROM recorded
            RETURNING seq
            """, logger: logger)
        return try await rows.decode(Int64.self).first { _ in true } != nil
    }

    /// The first parked row of each subject (the only one that may be applied next), oldest first, at most `pageSize`.
    func heads(in client: PostgresPool) async throws -> [Row] {
        let rows = try await client.query(
            """
            SELECT seq, event_id, topic, subject, payload, traceparent
            FROM (SELECT DISTINCT ON (subject) * FROM parked_events ORDER BY subject, seq) AS heads
            ORDER BY seq LIMIT \(Self.pageSize)
            """, logger: logger)
        var page: [Row] = []
        for try await (seq, eventId, topic, subject, payload, traceparent) in rows.decode(
            (Int64, UUID, String, String, ByteBuffer, String?).self)
        {
            page.append(
                Row(seq: seq, eventId: eventId, topic: topic, subject: subject, payload: Array(buffer: payload), traceparent: traceparent))
        }
        return page
    }

    /// Removes `row` for applying it in this transaction, unless it is gone (another instance took it) or an earlier
    /// event of its subject is still parked. Returns whether it was taken.
    func take(_ row: Row, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            DELETE FROM parked_events p WHERE seq = \(row.seq)
            AND NOT EXISTS (SELECT 1 FROM parked_events q WHERE q.subject = p.subject AND q.seq < p.seq)
            RETURNING seq
            """, logger: logger)
        return try await rows.decode(Int64.self).first { _ in true } != nil
    }

    /// Notes a retry that could not apply `row` either, and why.
    func recordFailedAttempt(_ row: Row, reason: String, in client: PostgresPool) async throws {
        try await client.query(
            """
            UPDATE parked_events SET attempts = attempts + 1, last_attempt_at = now(), reason = \(reason) WHERE seq = \(row.seq)
            """, logger: logger)
    }

    /// How many events `group` has parked, per topic.
    public static func backlog(of group: String, in client: PostgresPool, logger: Logger) async throws -> [ParkedBacklog] {
        let rows = try await client.query("SELECT topic, count(*) FROM parked_events GROUP BY topic", logger: logger)
        var backlog: [ParkedBacklog] = []
        for try await (topic, parked) in rows.decode((String, Int64).self) {
            backlog.append(ParkedBacklog(group: group, topic: topic, parked: parked))
        }
        return backlog
    }
}
