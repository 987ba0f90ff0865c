import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// A day's body metrics as the read model holds them.
struct BodyMetricsDay: Sendable, Equatable {
    var date: CalendarDate
    var weightKg: Double?
    var ketones: Double?
}

/// Reads `body_metrics`; every query logs to the request's `logger`.
struct BodyMetricsReader: Sendable {
    let client: PostgresPool

    /// The user's days with a weight or ketone level within `range`, oldest first.
    func days(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [BodyMetricsDay] {
        let rows = try await client.query(
            """
            SELECT day::text, weight_kg, ketones FROM body_metrics
            WHERE user_id = \(userId) AND day BETWEEN \(range.lowerBound.description)::date AND \(range.upperBound.description)::date
                AND (weight_kg IS NOT NULL OR ketones IS NOT NULL)
            ORDER BY day
            """, logger: logger)
        var days: [BodyMetricsDay] = []
        for try await row in rows.decode((String, Double?, Double?).self) {
            guard let date = CalendarDate(row.0) else { continue }
            days.append(BodyMetricsDay(date: date, weightKg: row.1, ketones: row.2))
        }
        return days
    }
}
