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

    typealias Row = (UUID, String, Double?, Double?, String?, Int, Date, Date?, String?)
    static let columns = "user_id, day::text, weight_kg, ketones, notes, version, updated_at, modified_at, modified_tiebreak"

    static func record(_ row: Row) throws -> DailyMetrics {
        guard let date = CalendarDate(row.1) else { throw PostgresError.protocol("unreadable day \(row.1)") }
        let modified = row.7.map { WriteStamp($0, tiebreak: row.8 ?? "") }
        return DailyMetrics(
            userId: row.0, date: date, weightKg: row.2, ketones: row.3, notes: row.4, version: row.5, updatedAt: row.6, modified: modified)
    }
}
