import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Bumps `user_data_versions`: every event applied for a user makes the reports computed before it stale.
struct DataVersionProjection: Sendable {
    /// One more version for each of `userIds` (a set: a batch of events bumps each user once), in the caller's
    /// transaction.
    func bump(_ userIds: Set<UUID>, on connection: PostgresConnection, logger: Logger) async throws {
        guard !userIds.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO user_data_versions (user_id, version) SELECT unnest(\(Array(userIds))::uuid[]), 1
            ON CONFLICT (user_id) DO UPDATE SET version = user_data_versions.version + 1
            """, logger: logger)
    }
}
