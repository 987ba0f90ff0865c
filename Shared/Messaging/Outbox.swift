import EventContracts
import NIOCore
import PostgresNIO
import ServiceDefaults

/// Writes events into the service's outbox inside the caller's transaction, so the state change and the
/// event commit together or not at all. `OutboxRelay` publishes them afterwards.
public enum Outbox {
    /// Appends `envelope` to the outbox on `connection`, keyed by the event's subject (the user id). Inside traced
    /// work, the current span's `traceparent` goes into the row (for the relay's Kafka header) and into the envelope
    /// (the CloudEvents `traceparent` attribute: where the event was made).
    public static func append<Payload>(_ envelope: EventEnvelope<Payload>, on connection: PostgresConnection, logger: Logger) async throws {
        var envelope = envelope
        let traceparent = envelope.traceparent ?? TraceContext.currentTraceparent()
        envelope.traceparent = traceparent
        let payload = ByteBuffer(bytes: try EventCoding.encode(envelope))
        try await connection.query(
            """
            INSERT INTO outbox (event_id, topic, message_key, payload, traceparent)
            VALUES (\(envelope.id), \(envelope.type), \(envelope.subject), \(payload), \(traceparent))
            """, logger: logger)
    }
}
