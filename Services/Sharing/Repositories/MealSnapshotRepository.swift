import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import WireJSON

/// The sharing service's copies of meals, kept from meal events. Versions decide, never arrival order: a copy
/// older than the stored one changes nothing, and a deletion leaves a tombstone (content wiped) so that a
/// late, older copy cannot bring the meal back. Every query logs to the caller's `logger` (the request's, or the consumer's).
struct MealSnapshotRepository: Sendable {
    static let encoder = WireJSONEncoder()
    static let decoder = JSONDecoder()

    /// Stores a full-state copy unless a newer one or a tombstone is already there; a copy without a photo drops the
    /// photo copied for links.
    func apply(_ meal: MealSnapshot, on connection: PostgresConnection, logger: Logger) async throws {
        let snapshot = String(decoding: try Self.encoder.encode(meal), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO meals (meal_id, user_id, version, snapshot) VALUES (\(meal.mealId), \(meal.userId), \(meal.version), \(snapshot))
            ON CONFLICT (meal_id) DO UPDATE SET version = EXCLUDED.version, snapshot = EXCLUDED.snapshot
            WHERE meals.user_id = EXCLUDED.user_id AND NOT meals.deleted AND meals.version < EXCLUDED.version
            """, logger: logger)
        if !meal.hasPhoto {
            // The owner removed the photo (or the clean-up did): shared links stop showing it, unless a newer copy
            // of the meal has arrived already.
            try await connection.query(
                """
                DELETE FROM meal_photos WHERE meal_id = \(meal.mealId) AND user_id = \(meal.userId)
                AND NOT EXISTS (SELECT 1 FROM meals WHERE meal_id = \(meal.mealId) AND version > \(meal.version))
                """, logger: logger)
        }
        try await CardRenderRepository.deleteOlder(mealId: meal.mealId, than: meal.version, on: connection, logger: logger)
    }

    /// Turns the meal into a tombstone and drops its photo copy and card renders; its links then answer 410.
    func delete(mealId: UUID, userId: UUID, version: Int, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO meals (meal_id, user_id, version, deleted) VALUES (\(mealId), \(userId), \(version), true)
            ON CONFLICT (meal_id) DO UPDATE SET version = GREATEST(meals.version, EXCLUDED.version), deleted = true, snapshot = NULL
            WHERE meals.user_id = EXCLUDED.user_id
            """, logger: logger)
        try await connection.query("DELETE FROM meal_photos WHERE meal_id = \(mealId) AND user_id = \(userId)", logger: logger)
        try await CardRenderRepository.deleteAll(mealId: mealId, on: connection, logger: logger)
    }

    /// The meal as last seen and its owner; nil when no event of it has arrived yet.
    func meal(_ mealId: UUID, client: PostgresPool, logger: Logger) async throws -> StoredMeal? {
        let rows = try await client.query("SELECT user_id, deleted, snapshot FROM meals WHERE meal_id = \(mealId)", logger: logger)
        for try await (userId, deleted, snapshot) in rows.decode((UUID, Bool, String?).self) {
            return StoredMeal(userId: userId, snapshot: try snapshot.map(Self.decode), deleted: deleted)
        }
        return nil
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM meals WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM meal_photos WHERE user_id = \(userId)", logger: logger)
        try await CardRenderRepository.deleteAll(userId: userId, on: connection, logger: logger)
    }

    static func decode(_ text: String) throws -> MealSnapshot {
        try decoder.decode(MealSnapshot.self, from: Data(text.utf8))
    }
}

/// A meal as the sharing service knows it.
struct StoredMeal: Sendable {
    var userId: UUID
    /// nil for a deleted meal.
    var snapshot: MealSnapshot?
    var deleted: Bool
}
