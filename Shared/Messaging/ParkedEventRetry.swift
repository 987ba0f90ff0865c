import EventContracts
import Foundation
import Logging
import Metrics
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import WireJSON

/// Applies parked events again: at start (a new binary may read what the old one could not) and every `interval`.
///
/// Each round takes the first parked event of every subject, oldest first, and applies each in its own transaction
/// that deletes its row and runs the handler, so an event is applied once even when several instances retry
/// together, and never before an earlier parked event of its user. One that still cannot be applied stays, with one
/// more attempt and the new reason; rounds repeat while they apply something.
struct ParkedEventRetry: Sendable {
    let client: PostgresPool
    let handler: any EventHandler
    let group: String
    let interval: Duration
    let logger: Logger

    private var parked: ParkedEvents { ParkedEvents(logger: logger) }

    /// Retries now and then every `interval`, until the task is cancelled; a failed round (the database away) is logged
    /// and tried again at the next.
    func run() async {
        while !Task.isCancelled {
            do {
                try await retryAll()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("parked events not retried now", metadata: ["error": .string(LogSafeError.describe(error))])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Retries rounds until one applies nothing; returns how many events were applied.
    @discardableResult
    func retryAll() async throws -> Int {
        var applied = 0
        while true {
            var progress = 0
            for row in try await parked.heads(in: client) where try await retry(row) { progress += 1 }
            applied += progress
            if progress == 0 { return applied }
        }
    }

    /// Tries one parked event; returns whether its row is gone (applied, or found applied before).
    private func retry(_ row: ParkedEvents.Row) async throws -> Bool {
        guard let header = try? EventCoding.header(of: row.payload) else {
            try await parked.recordFailedAttempt(row, reason: "unreadable envelope", in: client)
            return false
        }
        let event = ReceivedEvent(header: header, bytes: row.payload, traceparent: row.traceparent)
        do {
            let outcome = try await client.transaction(logger: logger) { connection -> String? in
                guard try await parked.take(row, on: connection) else { return nil }
                // Parked without a readable envelope, it was recorded under the md5 of its bytes: record its own id now.
                if row.eventId != header.id {
                    guard try await InboxConsumer.record(header, on: connection, logger: logger) else { return "duplicate" }
                }
                try await handler.handle(event, on: connection, logger: logger)
                return "applied"
            }
            guard let outcome else { return false }
            if outcome == "applied" { handler.committed([event]) }
            Counter(label: "inbox_events_total", dimensions: [("topic", header.type), ("result", outcome)]).increment()
            Counter(label: "events_unparked_total", dimensions: [("group", group), ("topic", row.topic)]).increment()
            logger.notice(
                "parked event applied",
                metadata: ["event_id": .string(header.id.lowercasedString), "type": .string(header.type), "result": .string(outcome)])
            return true
        } catch let rejection as EventRejected {
            try await parked.recordFailedAttempt(row, reason: rejection.reason, in: client)
            return false
        }
    }
}
