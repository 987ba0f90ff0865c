import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Reads `daily_summaries` (with each day's water from `water_days`); every query logs to the request's `logger`.
struct DaySummaryReader: Sendable {
    let client: PostgresPool

    /// The stored days of the user within `range` with their water, oldest first (days without meals or water have no
    /// row).
    func summaries(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [DaySummary] {
        let from = range.lowerBound.description
        let to = range.upperBound.description
        let rows = try await client.query(
            """
            SELECT coalesce(s.day, w.day)::text, coalesce(s.consumed_count, 0), coalesce(s.scanned_count, 0), coalesce(s.calories, 0),
                coalesce(s.protein, 0), coalesce(s.carbs, 0), coalesce(s.fat, 0), coalesce(s.fiber, 0), s.diet_score_mean,
                s.health_score_mean, coalesce(w.millilitres, 0)
            FROM (SELECT * FROM daily_summaries WHERE user_id = \(userId) AND day BETWEEN \(from)::date AND \(to)::date) s
            FULL JOIN (
                SELECT day, millilitres FROM water_days
                WHERE user_id = \(userId) AND day BETWEEN \(from)::date AND \(to)::date AND millilitres > 0
            ) w ON w.day = s.day
            ORDER BY 1
            """, logger: logger)
        var days: [DaySummary] = []
        for try await row in rows.decode((String, Int, Int, Double, Double, Double, Double, Double, Double?, Double?, Int).self) {
            guard let date = CalendarDate(row.0) else { continue }
            days.append(
                DaySummary(
                    date: date, consumedCount: row.1, scannedCount: row.2, calories: row.3, proteinGrams: row.4, carbsGrams: row.5,
                    fatGrams: row.6, fiberGrams: row.7, dietScore: row.8, healthScore: row.9, waterMillilitres: row.10))
        }
        return days
    }

    /// Every day on which the user consumed a meal, oldest first.
    func loggedDays(of userId: UUID, logger: Logger) async throws -> [CalendarDate] {
        let rows = try await client.query(
            "SELECT day::text FROM daily_summaries WHERE user_id = \(userId) AND consumed_count > 0 ORDER BY day", logger: logger)
        var days: [CalendarDate] = []
        for try await text in rows.decode(String.self) {
            if let day = CalendarDate(text) { days.append(day) }
        }
        return days
    }

    /// The totals of the days within each of `spans`, in one query. A span given twice is one span: the spans are
    /// made distinct before the days are joined to them, so no day is counted twice (a Monday's today and week were
    /// once the same start date, and every day of them counted twice).
    func totals(
        of userId: UUID, over spans: [ClosedRange<CalendarDate>], logger: Logger
    ) async throws -> [ClosedRange<CalendarDate>: PeriodTotals] {
        let rows = try await client.query(
            """
            SELECT span.first_day::text, span.last_day::text, coalesce(sum(s.consumed_count), 0)::int8, coalesce(sum(s.scanned_count), 0)::int8,
                count(s.day) FILTER (WHERE s.consumed_count > 0), coalesce(sum(s.calories), 0), coalesce(sum(s.protein), 0),
                coalesce(sum(s.carbs), 0), coalesce(sum(s.fat), 0), coalesce(sum(s.fiber), 0)
            FROM (
                SELECT DISTINCT first_day, last_day
                FROM unnest(\(spans.map(\.lowerBound.description))::date[], \(spans.map(\.upperBound.description))::date[]) AS t(first_day, last_day)
            ) span
            LEFT JOIN daily_summaries s ON s.user_id = \(userId) AND s.day BETWEEN span.first_day AND span.last_day
            GROUP BY span.first_day, span.last_day
            """, logger: logger)
        var totals: [ClosedRange<CalendarDate>: PeriodTotals] = [:]
        for try await row in rows.decode((String, String, Int, Int, Int, Double, Double, Double, Double, Double).self) {
            guard let first = CalendarDate(row.0), let last = CalendarDate(row.1) else { continue }
            totals[first...last] = PeriodTotals(
                mealsConsumed: row.2, mealsScanned: row.3, daysLogged: row.4, calories: row.5, proteinGrams: row.6, carbsGrams: row.7,
                fatGrams: row.8, fiberGrams: row.9)
        }
        return totals
    }
}
