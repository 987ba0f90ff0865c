import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport

/// The PNG renders of share cards, one per meal and card source (see `Migrations/0002_card_renders.sql`).
/// Every query logs to the caller's `logger`.
struct CardRenderRepository: Sendable {
    let client: PostgresPool

    /// The stored render of the card whose source has `sourceDigest`; nil when it was not rendered yet.
    func png(mealId: UUID, sourceDigest: String, logger: Logger) async throws -> ByteBuffer? {
        let rows = try await client.query(
            "SELECT png FROM card_renders WHERE meal_id = \(mealId) AND source_digest = \(sourceDigest)", logger: logger)
        for try await png in rows.decode(ByteBuffer.self) { return png }
        return nil
    }

    /// Keeps a new render and drops the meal's renders of older versions; a render of an older version than one
    /// already kept (a slow request racing an edit) is not kept.
    func save(
        _ png: ByteBuffer, mealId: UUID, userId: UUID, mealVersion: Int, sourceDigest: String, renderedAt: Date, logger: Logger
    ) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                "DELETE FROM card_renders WHERE meal_id = \(mealId) AND meal_version < \(mealVersion)", logger: logger)
            try await connection.query(
                """
                INSERT INTO card_renders (meal_id, user_id, meal_version, source_digest, png, rendered_at)
                SELECT \(mealId), \(userId), \(mealVersion), \(sourceDigest), \(png), \(renderedAt)
                WHERE NOT EXISTS (SELECT 1 FROM card_renders WHERE meal_id = \(mealId) AND meal_version > \(mealVersion))
                ON CONFLICT (meal_id, source_digest) DO NOTHING
                """, logger: logger)
        }
    }

    /// Drops every render of a meal (deleted) in the consumer's transaction.
    static func deleteAll(mealId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM card_renders WHERE meal_id = \(mealId)", logger: logger)
    }

    /// Drops every render of a user's meals (account deleted) in the consumer's transaction.
    static func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM card_renders WHERE user_id = \(userId)", logger: logger)
    }

    /// Drops the renders of versions before `version` of a meal (a newer copy arrived).
    static func deleteOlder(mealId: UUID, than version: Int, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM card_renders WHERE meal_id = \(mealId) AND meal_version < \(version)", logger: logger)
    }
}
