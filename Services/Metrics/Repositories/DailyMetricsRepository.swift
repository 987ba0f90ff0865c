import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// Rows of `daily_metrics`: one per user and day.
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct DailyMetricsRepository: Sendable {
    /// The user's day locked for update; a day never recorded comes back empty with version 0 (and a
    /// placeholder row that the caller's transaction either fills or rolls back).
    func lock(userId: UUID, date: CalendarDate, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> DailyMetrics {
        try await connection.query(
            """
            INSERT INTO daily_metrics (user_id, day, version, updated_at) VALUES (\(userId), \(date.description)::date, 0, \(now))
            ON CONFLICT (user_id, day) DO NOTHING
            """, logger: logger)
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM daily_metrics WHERE user_id = \(userId) AND day = \(date.description)::date FOR UPDATE
            """, logger: logger)
        for try await row in rows.decode(Row.self) { return try Self.record(row) }
        throw PostgresError.protocol("the locked day vanished")
    }

    /// Stores the day's values, version, stamp and change number `seq`.
    func save(_ record: DailyMetrics, seq: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE daily_metrics SET weight_kg = \(record.weightKg), ketones = \(record.ketones), notes = \(record.notes),
                version = \(record.version), updated_at = \(record.updatedAt), modified_at = \(record.modified?.date),
                modified_tiebreak = \(record.modified?.tiebreak), change_seq = \(seq)
            WHERE user_id = \(record.userId) AND day = \(record.date.description)::date
            """, logger: logger)
    }

    /// The user's recorded days from `from` to `to` (inclusive), oldest first; tombstones are left out.
    func list(
        userId: UUID, from: CalendarDate, to: CalendarDate, on connection: PostgresConnection, logger: Logger
    ) async throws -> [DailyMetrics] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM daily_metrics
            WHERE user_id = \(userId) AND day BETWEEN \(from.description)::date AND \(to.description)::date
                AND (weight_kg IS NOT NULL OR ketones IS NOT NULL)
            ORDER BY day
            """, logger: logger)
        var records: [DailyMetrics] = []
        for try await row in rows.decode(Row.self) { records.append(try Self.record(row)) }
        return records
    }

    /// The user's changes after `since`, oldest first, at most `limit`: recorded days and the tombstones of emptied
    /// ones, read in one statement (one snapshot), so a change committed meanwhile is either in both parts or in none.
    func changes(
        userId: UUID, since: Int64, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [MetricsFeedEntry] {
        let rows = try await connection.query(
            """
            (SELECT \(unescaped: Self.columns), change_seq, NULL::timestamptz AS deleted_at FROM daily_metrics
             WHERE user_id = \(userId) AND change_seq > \(since) AND (weight_kg IS NOT NULL OR ketones IS NOT NULL)
             ORDER BY change_seq LIMIT \(limit))
            UNION ALL
            (SELECT \(userId), entity_id, NULL, NULL, NULL, version, deleted_at, NULL, NULL, change_seq, deleted_at
             FROM sync_tombstones
             WHERE user_id = \(userId) AND entity_type = \(DailyMetrics.syncType) AND change_seq > \(since)
             ORDER BY change_seq LIMIT \(limit))
            ORDER BY change_seq LIMIT \(limit)
            """, logger: logger)
        var entries: [MetricsFeedEntry] = []
        for try await row in rows.decode((UUID, String, Double?, Double?, String?, Int, Date, Date?, String?, Int64, Date?).self) {
            if let deletedAt = row.10 {
                entries.append(.removed(seq: row.9, date: row.1, version: row.5, deletedAt: deletedAt))
            } else {
                let day = try Self.record((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8))
                entries.append(.day(seq: row.9, day))
            }
        }
        return entries
    }

    /// Up to `limit` of the user's recorded days before `cutoff`, oldest first, locked for update; days another
    /// transaction holds are skipped (replicas purging at once never take the same day).
    func lockRecordedDays(
        userId: UUID, before cutoff: CalendarDate, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [CalendarDate] {
        let rows = try await connection.query(
            """
            SELECT day::text FROM daily_metrics
            WHERE user_id = \(userId) AND day < \(cutoff.description)::date AND (weight_kg IS NOT NULL OR ketones IS NOT NULL)
            ORDER BY day LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """, logger: logger)
        var days: [CalendarDate] = []
        for try await text in rows.decode(String.self) {
            guard let day = CalendarDate(text) else { throw PostgresError.protocol("unreadable day \(text)") }
            days.append(day)
        }
        return days
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM daily_metrics WHERE user_id = \(userId)", logger: logger)
    }

    private typealias Row = (UUID, String, Double?, Double?, String?, Int, Date, Date?, String?)
    private static let columns = "user_id, day::text, weight_kg, ketones, notes, version, updated_at, modified_at, modified_tiebreak"

    private static func record(_ row: Row) throws -> DailyMetrics {
        guard let date = CalendarDate(row.1) else { throw PostgresError.protocol("unreadable day \(row.1)") }
        let modified = row.7.map { WriteStamp($0, tiebreak: row.8 ?? "") }
        return DailyMetrics(
            userId: row.0, date: date, weightKg: row.2, ketones: row.3, notes: row.4, version: row.5, updatedAt: row.6, modified: modified)
    }
}
