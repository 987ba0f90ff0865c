import Logging
import PostgresNIO

/// Applies one event's effect in the consumer's schema, inside the transaction that records it in the inbox.
public protocol EventHandler: Sendable {
    /// Throw `EventRejected` for an event that cannot be applied (it is parked); any other error is retried.
    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws

    /// Applies the new events of a batch, in their order, in the one transaction that records them in the inbox.
    /// The end state must be the one `handle` gives event by event. Any error rolls the batch back, after which
    /// the inbox applies its events one by one with `handle`, so a rejected event does not hold back the others.
    func handle(batch events: [ReceivedEvent], on connection: PostgresConnection, logger: Logger) async throws

    /// Told after the transaction that applied `events` committed (never of duplicates, parked or rolled-back events),
    /// so that whatever waits in this process for their effects can read them now. Must return promptly.
    func committed(_ events: [ReceivedEvent])
}

extension EventHandler {
    /// Event by event, for handlers that have nothing cheaper.
    public func handle(batch events: [ReceivedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events { try await handle(event, on: connection, logger: logger) }
    }

    /// Nothing waits on most handlers' effects.
    public func committed(_ events: [ReceivedEvent]) {}
}
