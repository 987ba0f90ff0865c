import EventContracts
import Foundation
import Kafka
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle

/// An event as received, with its header decoded and its payload decodable on demand.
public struct ReceivedEvent: Sendable {
    public let header: EventHeader
    public let bytes: [UInt8]

    /// Decodes the full envelope with the payload type of `header.type`.
    public func decode<Payload: EventPayload>(_ type: Payload.Type) throws -> EventEnvelope<Payload> {
        try EventCoding.decode(type, from: bytes)
    }

    /// The payload as `type`; an unreadable one is `EventRejected`, since it can never be applied.
    public func payload<Payload: EventPayload>(_ type: Payload.Type) throws -> Payload {
        do {
            return try decode(type).data
        } catch {
            throw EventRejected("unreadable \(header.type) payload")
        }
    }
}

/// Applies one event's effect in the consumer's schema, inside the transaction that records it in the inbox.
public protocol EventHandler: Sendable {
    /// Throw `EventRejected` for an event that can never be applied; any other error is retried.
    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws
}

/// An event that can never be applied (unreadable or against the contract); it is recorded and skipped.
public struct EventRejected: Error, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Reads a consumer group's messages and applies each exactly once: the inbox row and the effect commit
/// in one transaction, and the Kafka offset is committed only afterwards. Redelivered events find their
/// id in the inbox and change nothing.
public final class InboxConsumer: Service {
    private let client: PostgresClient
    private let consumer: KafkaConsumer
    private let handler: any EventHandler
    private let logger: Logger
    private let maxBackoff: Duration
    private let startAfter: StartupLatch?

    /// - Parameter startAfter: opened when the schema's migrations are applied; nothing is read before.
    public init(
        client: PostgresClient, consumer: KafkaConsumer, handler: any EventHandler, logger: Logger, maxBackoff: Duration = .seconds(10),
        startAfter: StartupLatch? = nil
    ) {
        self.startAfter = startAfter
        self.client = client
        self.consumer = consumer
        self.handler = handler
        self.logger = logger
        self.maxBackoff = maxBackoff
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                await self.startAfter?.wait()
                for try await message in self.consumer.messages {
                    try await self.process(message)
                }
            }
        } catch is CancellationError {}
        await consumer.close()
    }

    /// Applies one message, retrying with backoff until it is applied, rejected or the task is cancelled.
    func process(_ message: KafkaMessage) async throws {
        let header: EventHeader
        do {
            header = try EventCoding.header(of: message.value)
        } catch {
            logger.error(
                "unreadable event skipped",
                metadata: ["topic": .string(message.topic), "partition": "\(message.partition)", "offset": "\(message.offset)"])
            Counter(label: "inbox_events_total", dimensions: [("topic", message.topic), ("result", "unreadable")]).increment()
            try await commitQuietly(message)
            return
        }
        let event = ReceivedEvent(header: header, bytes: message.value)
        var backoff = Duration.milliseconds(100)
        while true {
            try Task.checkCancellation()
            do {
                let result = try await applyOnce(event)
                Counter(label: "inbox_events_total", dimensions: [("topic", message.topic), ("result", result)]).increment()
                break
            } catch let error as CancellationError {
                throw error
            } catch {
                logger.warning(
                    "event not applied yet; will retry",
                    metadata: ["event_id": .string(header.id.uuidString), "error": .string(LogSafeError.describe(error)), "retry_in": "\(backoff)"])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, maxBackoff)
            }
        }
        try await commitQuietly(message)
    }

    /// One transaction: record the id, apply the effect if the id was new. Returns what happened.
    private func applyOnce(_ event: ReceivedEvent) async throws -> String {
        try await client.withTransaction(logger: logger) { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO inbox (event_id, event_type) VALUES (\(event.header.id), \(event.header.type))
                ON CONFLICT (event_id) DO NOTHING RETURNING event_id
                """, logger: logger
            ).decode(UUID.self).first { _ in true } != nil
            guard inserted else { return "duplicate" }
            do {
                try await handler.handle(event, on: connection, logger: logger)
                return "applied"
            } catch let rejection as EventRejected {
                logger.error(
                    "event rejected and skipped",
                    metadata: ["event_id": .string(event.header.id.uuidString), "reason": .string(rejection.reason)])
                return "rejected"
            }
        }
    }

    private func commitQuietly(_ message: KafkaMessage) async throws {
        do {
            try await consumer.commit(message)
        } catch {
            // The effect is already recorded; a lost commit only means a harmless redelivery.
            logger.debug("offset commit failed", metadata: ["error": .string(LogSafeError.describe(error))])
        }
    }
}
