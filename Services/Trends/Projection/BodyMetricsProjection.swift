import EventContracts
import Foundation
import Logging
import PostgresNIO
import ServiceDefaults

/// The `body_metrics` read model from `weight.logged`: the day's full record, newest version wins.
/// A day whose weight and ketones were both removed keeps a row of nulls, so a late older copy stays out.
/// Every query logs to the consumer's `logger`.
struct BodyMetricsProjection: Sendable {
    func apply(_ event: WeightLogged, on connection: PostgresConnection, logger: Logger) async throws {
        guard CalendarDate(event.date) != nil else { throw ProjectionError.unreadableDate(event.date) }
        try await connection.query(
            """
            INSERT INTO body_metrics (user_id, day, weight_kg, ketones, version)
            VALUES (\(event.userId), \(event.date)::date, \(event.weightKg), \(event.ketonesMmolPerLiter), \(event.version))
            ON CONFLICT (user_id, day) DO UPDATE SET weight_kg = EXCLUDED.weight_kg, ketones = EXCLUDED.ketones,
                version = EXCLUDED.version
            WHERE body_metrics.version < EXCLUDED.version
            """, logger: logger)
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM body_metrics WHERE user_id = \(userId)", logger: logger)
    }
}
