import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// What is left of a deleted entity for the changes feed (`sync_tombstones`, `Migration.sync`): its type, id,
/// last version, deletion time and change number; its data is gone.
public struct SyncTombstone: Sendable, Equatable {
    public var entityType: String
    public var entityId: String
    public var version: Int
    public var deletedAt: Date
    public var seq: Int64

    public init(entityType: String, entityId: String, version: Int, deletedAt: Date, seq: Int64) {
        self.entityType = entityType
        self.entityId = entityId
        self.version = version
        self.deletedAt = deletedAt
        self.seq = seq
    }
}

/// The tombstones of one schema. Every method takes the caller's connection (to join its transaction) and logger.
public enum SyncTombstones {
    /// Records (or renews) the tombstone of the user's entity.
    public static func record(_ tombstone: SyncTombstone, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO sync_tombstones (user_id, entity_type, entity_id, version, deleted_at, change_seq)
            VALUES (\(userId), \(tombstone.entityType), \(tombstone.entityId), \(tombstone.version), \(tombstone.deletedAt), \(tombstone.seq))
            ON CONFLICT (user_id, entity_type, entity_id) DO UPDATE
                SET version = EXCLUDED.version, deleted_at = EXCLUDED.deleted_at, change_seq = EXCLUDED.change_seq
            """, logger: logger)
    }

    /// The tombstone of the user's entity, if it was deleted (and the tombstone is still kept).
    public static func find(
        type: String, id: String, userId: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws -> SyncTombstone? {
        let rows = try await connection.query(
            """
            SELECT entity_type, entity_id, version, deleted_at, change_seq FROM sync_tombstones
            WHERE user_id = \(userId) AND entity_type = \(type) AND entity_id = \(id)
            """, logger: logger)
        for try await row in rows.decode((String, String, Int, Date, Int64).self) {
            return SyncTombstone(entityType: row.0, entityId: row.1, version: row.2, deletedAt: row.3, seq: row.4)
        }
        return nil
    }

    /// Removes the tombstone of an entity stored again under the same id.
    public static func remove(type: String, id: String, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM sync_tombstones WHERE user_id = \(userId) AND entity_type = \(type) AND entity_id = \(id)", logger: logger)
    }

    /// The user's tombstones with a change number after `since`, oldest first, at most `limit`.
    public static func changed(
        userId: UUID, since: Int64, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [SyncTombstone] {
        let rows = try await connection.query(
            """
            SELECT entity_type, entity_id, version, deleted_at, change_seq FROM sync_tombstones
            WHERE user_id = \(userId) AND change_seq > \(since) ORDER BY change_seq LIMIT \(limit)
            """, logger: logger)
        var tombstones: [SyncTombstone] = []
        for try await row in rows.decode((String, String, Int, Date, Int64).self) {
            tombstones.append(SyncTombstone(entityType: row.0, entityId: row.1, version: row.2, deletedAt: row.3, seq: row.4))
        }
        return tombstones
    }

    /// Drops tombstones (and recorded conflicts) older than `cutoff`, and moves each affected user's expiry mark
    /// to the newest change number dropped, so a feed read from before it answers 410. Safe on every replica at
    /// once. Returns how many tombstones went.
    @discardableResult
    public static func purge(olderThan cutoff: Date, client: PostgresPool, logger: Logger) async throws -> Int {
        let purged = try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                WITH purged AS (
                    DELETE FROM sync_tombstones WHERE deleted_at < \(cutoff) RETURNING user_id, change_seq
                ), marks AS (
                    SELECT user_id, max(change_seq) AS seq, count(*) AS n FROM purged GROUP BY user_id
                ), moved AS (
                    UPDATE sync_clocks c SET expired_through = GREATEST(c.expired_through, marks.seq)
                    FROM marks WHERE c.user_id = marks.user_id
                )
                SELECT coalesce(sum(n), 0)::bigint FROM marks
                """, logger: logger)
            var count: Int64 = 0
            for try await n in rows.decode(Int64.self) { count = n }
            try await connection.query("DELETE FROM sync_conflicts WHERE resolved_at < \(cutoff)", logger: logger)
            return Int(count)
        }
        return purged
    }
}
