import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Keeps `user_data_versions`: every event applied for a user makes the reports computed before it stale.
struct DataVersionProjection: Sendable {
    /// One more version for each of `userIds` (a set: a batch of events can bump each user once), in the caller's
    /// transaction. Deleted users get no row back: nothing about them may stay.
    func bump(_ userIds: Set<UUID>, on connection: PostgresConnection, logger: Logger) async throws {
        guard !userIds.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO user_data_versions (user_id, version)
            SELECT bumped.user_id, 1 FROM unnest(\(Array(userIds))::uuid[]) AS bumped (user_id)
            WHERE NOT EXISTS (SELECT 1 FROM deleted_users WHERE deleted_users.user_id = bumped.user_id)
            ON CONFLICT (user_id) DO UPDATE SET version = user_data_versions.version + 1
            """, logger: logger)
    }

    /// The user's row goes with the rest of their data; their reports are then at version 0, which no report kept
    /// from before the deletion has.
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM user_data_versions WHERE user_id = \(userId)", logger: logger)
    }
}
