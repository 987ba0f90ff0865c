import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// Rows of `water_entries` (one per drink) and `water_days` (each day's water version, carried by `water.logged`).
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct WaterEntryRepository: Sendable {
    /// The user's entry `id` locked for update (nil when none is stored); before reading, the transaction takes an
    /// advisory lock of the id, so two first writes of one new id wait for each other instead of both inserting.
    func lock(userId: UUID, id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> WaterEntry? {
        let key = "water:\(userId.uuidString.lowercased()):\(id.uuidString.lowercased())"
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
        let rows = try await connection.query(
            "SELECT \(unescaped: Self.columns) FROM water_entries WHERE user_id = \(userId) AND id = \(id) FOR UPDATE", logger: logger)
        for try await row in rows.decode(Row.self) { return try Self.entry(row) }
        return nil
    }

    /// Stores `entry` (new or replaced) with its change number `seq`.
    func save(_ entry: WaterEntry, seq: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO water_entries (id, user_id, day, millilitres, version, created_at, updated_at, modified_at, modified_tiebreak, change_seq)
            VALUES (\(entry.id), \(entry.userId), \(entry.date.description)::date, \(entry.millilitres), \(entry.version), \(entry.createdAt),
                \(entry.updatedAt), \(entry.modified.date), \(entry.modified.tiebreak), \(seq))
            ON CONFLICT (user_id, id) DO UPDATE SET day = EXCLUDED.day, millilitres = EXCLUDED.millilitres, version = EXCLUDED.version,
                updated_at = EXCLUDED.updated_at, modified_at = EXCLUDED.modified_at, modified_tiebreak = EXCLUDED.modified_tiebreak,
                change_seq = EXCLUDED.change_seq
            """, logger: logger)
    }

    func delete(userId: UUID, id: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM water_entries WHERE user_id = \(userId) AND id = \(id)", logger: logger)
    }

    /// The day's water after a change: its next version (the day's row locked until the transaction ends, so the
    /// versions of one day follow commit order) and the sum of its entries.
    func nextTotal(userId: UUID, date: CalendarDate, on connection: PostgresConnection, logger: Logger) async throws -> WaterDayTotal {
        let versions = try await connection.query(
            """
            INSERT INTO water_days (user_id, day, version) VALUES (\(userId), \(date.description)::date, 1)
            ON CONFLICT (user_id, day) DO UPDATE SET version = water_days.version + 1
            RETURNING version
            """, logger: logger)
        var version = 0
        for try await value in versions.decode(Int.self) { version = value }
        let sums = try await connection.query(
            """
            SELECT coalesce(sum(millilitres), 0)::int8, count(*)::int8 FROM water_entries
            WHERE user_id = \(userId) AND day = \(date.description)::date
            """, logger: logger)
        for try await (total, count) in sums.decode((Int, Int).self) {
            return WaterDayTotal(userId: userId, date: date, totalMillilitres: total, entryCount: count, version: version)
        }
        throw PostgresError.protocol("no water sum")
    }

    /// The user's entries from `from` to `to` (inclusive), by day and then as they were logged.
    func list(
        userId: UUID, from: CalendarDate, to: CalendarDate, on connection: PostgresConnection, logger: Logger
    ) async throws -> [WaterEntry] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM water_entries
            WHERE user_id = \(userId) AND day BETWEEN \(from.description)::date AND \(to.description)::date
            ORDER BY day, created_at, id
            """, logger: logger)
        var entries: [WaterEntry] = []
        for try await row in rows.decode(Row.self) { entries.append(try Self.entry(row)) }
        return entries
    }

    /// Up to `limit` of the user's entries before `cutoff`, oldest first, locked; entries another transaction holds are
    /// skipped (replicas purging at once never take the same entry).
    func lockEntries(
        userId: UUID, before cutoff: CalendarDate, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [WaterEntry] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM water_entries WHERE user_id = \(userId) AND day < \(cutoff.description)::date
            ORDER BY day, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """, logger: logger)
        var entries: [WaterEntry] = []
        for try await row in rows.decode(Row.self) { entries.append(try Self.entry(row)) }
        return entries
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM water_entries WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM water_days WHERE user_id = \(userId)", logger: logger)
    }

    typealias Row = (UUID, UUID, String, Int, Int, Date, Date, Date, String)
    static let columns = "id, user_id, day::text, millilitres, version, created_at, updated_at, modified_at, modified_tiebreak"

    static func entry(_ row: Row) throws -> WaterEntry {
        guard let date = CalendarDate(row.2) else { throw PostgresError.protocol("unreadable day \(row.2)") }
        return WaterEntry(
            id: row.0, userId: row.1, date: date, millilitres: row.3, version: row.4, createdAt: row.5, updatedAt: row.6,
            modified: WriteStamp(row.7, tiebreak: row.8))
    }
}
