import Foundation
import Logging
import PostgresNIO

/// The ids of users whose `user.deleted` a read model applied, kept in the service's own `deleted_users`
/// table (`user_id uuid PRIMARY KEY, deleted_at timestamptz`), so that their events still in flight on other
/// topics are ignored instead of bringing their data back.
public enum DeletedUsers {
    /// Remembers the user as deleted (again is fine).
    public static func remember(_ userId: UUID, deletedAt: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "INSERT INTO deleted_users (user_id, deleted_at) VALUES (\(userId), \(deletedAt)) ON CONFLICT (user_id) DO NOTHING",
            logger: logger)
    }

    /// Whether the user was deleted.
    public static func contains(_ userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("SELECT 1 FROM deleted_users WHERE user_id = \(userId)", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Which of `userIds` were deleted, in one query.
    public static func among(_ userIds: Set<UUID>, on connection: PostgresConnection, logger: Logger) async throws -> Set<UUID> {
        guard !userIds.isEmpty else { return [] }
        let rows = try await connection.query("SELECT user_id FROM deleted_users WHERE user_id = ANY(\(Array(userIds)))", logger: logger)
        var deleted = Set<UUID>()
        for try await userId in rows.decode(UUID.self) { deleted.insert(userId) }
        return deleted
    }
}
