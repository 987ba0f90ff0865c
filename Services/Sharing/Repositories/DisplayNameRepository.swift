import EventContracts
import Foundation
import Logging
import PostgresNIO

/// Users' display names from `user.profile_updated`, shown on links whose owner allowed it.
/// Every query logs to the consumer's `logger`.
struct DisplayNameRepository: Sendable {
    /// Keeps the newest version of the user's name.
    func save(_ profile: UserProfileUpdated, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO display_names (user_id, display_name, version) VALUES (\(profile.userId), \(profile.displayName), \(profile.version))
            ON CONFLICT (user_id) DO UPDATE SET display_name = EXCLUDED.display_name, version = EXCLUDED.version
            WHERE display_names.version < EXCLUDED.version
            """, logger: logger)
    }

    func delete(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM display_names WHERE user_id = \(userId)", logger: logger)
    }
}
