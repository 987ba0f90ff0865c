import Foundation
import Logging
import PostgresNIO

/// The per-user change counter behind a schema's changes feed (`sync_clocks`, `Migration.sync`).
///
/// Every write a feed shows stamps its row with `next(for:)`. Taking a number locks the user's clock row until the
/// transaction ends, so one user's numbers commit in the order they were handed out: a reader that saw number n
/// will never later find a smaller one committed. Take it last in a transaction, after locking the rows it
/// changes, so that two writers of one user cannot wait on each other.
public enum SyncClock {
    /// The user's next change number (1 for the first).
    public static func next(for userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            """
            INSERT INTO sync_clocks (user_id, last_seq) VALUES (\(userId), 1)
            ON CONFLICT (user_id) DO UPDATE SET last_seq = sync_clocks.last_seq + 1
            RETURNING last_seq
            """, logger: logger)
        for try await seq in rows.decode(Int64.self) { return seq }
        throw MissingRow()
    }

    /// Whether a feed read from `since` may miss deletions: `since` is older than the newest purged tombstone of the
    /// user (the caller answers 410 `sync_cursor_expired`). `since` 0, everything, never is.
    public static func isExpired(_ since: Int64, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        guard since > 0 else { return false }
        let rows = try await connection.query("SELECT expired_through FROM sync_clocks WHERE user_id = \(userId)", logger: logger)
        for try await expiredThrough in rows.decode(Int64.self) { return since < expiredThrough }
        return false
    }

    /// Forgets the user's clock, tombstones and conflicts (when the user is deleted).
    public static func forget(_ userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM sync_tombstones WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM sync_conflicts WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM sync_clocks WHERE user_id = \(userId)", logger: logger)
    }
}

/// The clock's upsert answered no row (it always answers one).
private struct MissingRow: Error {}
