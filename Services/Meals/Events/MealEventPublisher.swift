import EventContracts
import Foundation
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// The events the meals service publishes, written to its outbox inside the transaction of the change.
///
/// Every change of a meal publishes its full current state: `meal.consumed` while it is consumed,
/// `meal.analyzed` while it is not. Unconsuming also sends `meal.deleted` with reason `unconsumed`
/// (it no longer counts toward the day), and deleting sends `meal.deleted` with reason `deleted`.
enum MealEventPublisher {
    static let source = "meals"

    /// The events for `meal` after a change; `wasConsumed` is its state before the change (nil for a new meal).
    static func changed(_ meal: MealRecord, wasConsumed: Bool?, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        if wasConsumed == true && !meal.isConsumed {
            try await append(
                MealDeleted(mealId: meal.id, userId: meal.userId, reason: "unconsumed", version: meal.version), meal.userId, now, connection, logger)
        }
        if meal.isConsumed {
            if wasConsumed == nil { try await append(MealAnalyzed(meal: meal.snapshot), meal.userId, now, connection, logger) }
            try await append(MealConsumed(meal: meal.snapshot), meal.userId, now, connection, logger)
        } else {
            try await append(MealAnalyzed(meal: meal.snapshot), meal.userId, now, connection, logger)
        }
    }

    /// `meal.deleted` for a meal that is gone.
    static func deleted(_ meal: MealRecord, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await append(
            MealDeleted(mealId: meal.id, userId: meal.userId, reason: "deleted", version: meal.version + 1), meal.userId, now, connection, logger)
    }

    private static func append<Payload: EventPayload>(
        _ payload: Payload, _ userId: UUID, _ now: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let envelope = EventEnvelope(source: source, subject: userId.lowercasedString, data: payload, time: now)
        try await Outbox.append(envelope, on: connection, logger: logger)
    }
}
