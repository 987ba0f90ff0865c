import EventContracts
import Foundation
import Logging
import PostgresNIO
import ServiceDefaults

/// The `water_days` read model from `water.logged`: the day's total, newest version wins. A day whose entries were all
/// removed keeps a row of 0, so a late older copy stays out. Every query logs to the consumer's `logger`.
struct WaterProjection: Sendable {
    func apply(_ event: WaterLogged, on connection: PostgresConnection, logger: Logger) async throws {
        guard CalendarDate(event.date) != nil else { throw ProjectionError.unreadableDate(event.date) }
        try await connection.query(
            """
            INSERT INTO water_days (user_id, day, millilitres, entry_count, version)
            VALUES (\(event.userId), \(event.date)::date, \(event.totalMillilitres), \(event.entryCount), \(event.version))
            ON CONFLICT (user_id, day) DO UPDATE SET millilitres = EXCLUDED.millilitres, entry_count = EXCLUDED.entry_count,
                version = EXCLUDED.version
            WHERE water_days.version < EXCLUDED.version
            """, logger: logger)
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM water_days WHERE user_id = \(userId)", logger: logger)
    }
}
