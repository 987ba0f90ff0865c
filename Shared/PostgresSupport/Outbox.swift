import EventContracts
import NIOCore
import PostgresNIO

/// Writes events into the service's outbox inside the caller's transaction, so the state change and the
/// event commit together or not at all. `OutboxRelay` publishes them afterwards.
public enum Outbox {
    /// Appends `envelope` to the outbox on `connection`, keyed by the event's subject (the user id).
    public static func append<Payload>(_ envelope: EventEnvelope<Payload>, on connection: PostgresConnection, logger: Logger) async throws {
        let payload = ByteBuffer(bytes: try EventCoding.encode(envelope))
        try await connection.query(
            """
            INSERT INTO outbox (event_id, topic, message_key, payload)
            VALUES (\(envelope.id), \(envelope.type), \(envelope.subject), \(payload))
            """, logger: logger)
    }
}
