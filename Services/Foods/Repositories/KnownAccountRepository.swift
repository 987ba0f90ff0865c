import Foundation
import Logging
import PostgresNIO

/// The SQL of what foods knows of accounts from the events it consumes (`known_accounts`, `meal_states`): when it first
/// saw each, the newest state of each meal, and how many meals each has logged. Every method takes the connection of
/// the consumer's (or the store's) transaction.
struct KnownAccountRepository: Sendable {
    /// Notes that `userId` was seen at `time` (an event's time): the earliest sighting is kept.
    func noteSeen(_ userId: UUID, at time: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO known_accounts (user_id, first_seen_at) VALUES (\(userId), \(time))
            ON CONFLICT (user_id) DO UPDATE SET first_seen_at = least(known_accounts.first_seen_at, EXCLUDED.first_seen_at)
            """, logger: logger)
    }

    /// The stored state of meal `mealId`, locked for the transaction.
    func mealState(_ mealId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> MealState? {
        let rows = try await connection.query(
            "SELECT user_id, version, consumed, deleted FROM meal_states WHERE meal_id = \(mealId) FOR UPDATE", logger: logger)
        for try await (userId, version, consumed, deleted) in rows.decode((UUID, Int, Bool, Bool).self) {
            return MealState(userId: userId, version: version, consumed: consumed, deleted: deleted)
        }
        return nil
    }

    /// Stores `state` as meal `mealId`'s, and moves its owner's count of logged meals by `loggedMealsChange`.
    func saveMealState(
        _ state: MealState, of mealId: UUID, loggedMealsChange: Int, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO meal_states (meal_id, user_id, version, consumed, deleted)
            VALUES (\(mealId), \(state.userId), \(state.version), \(state.consumed), \(state.deleted))
            ON CONFLICT (meal_id) DO UPDATE SET version = EXCLUDED.version, consumed = EXCLUDED.consumed, deleted = EXCLUDED.deleted
            """, logger: logger)
        guard loggedMealsChange != 0 else { return }
        try await connection.query(
            "UPDATE known_accounts SET logged_meals = greatest(0, logged_meals + \(loggedMealsChange)) WHERE user_id = \(state.userId)",
            logger: logger)
    }

    /// What is known of `userId`, if anything.
    func knownAccount(_ userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> KnownAccount? {
        let rows = try await connection.query(
            "SELECT first_seen_at, logged_meals FROM known_accounts WHERE user_id = \(userId)", logger: logger)
        for try await (firstSeenAt, loggedMeals) in rows.decode((Date, Int).self) {
            return KnownAccount(firstSeenAt: firstSeenAt, loggedMeals: loggedMeals)
        }
        return nil
    }

    /// Forgets the account and its meals (`user.deleted`).
    func forget(_ userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM meal_states WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM known_accounts WHERE user_id = \(userId)", logger: logger)
    }
}
