import Foundation
import Logging
import PostgresNIO
import ServiceDefaults

/// Keeps `daily_summaries` equal to an aggregate of the day's meals: every change of a meal recomputes the
/// days it touched, so redelivered, reordered and late events all converge on the same rows.
/// Every query logs to the consumer's `logger`.
struct DaySummaryProjection: Sendable {
    /// Recomputes the user's `day` from `meals` in one statement; a day left without meals loses its row.
    func recompute(userId: UUID, day: CalendarDate, on connection: PostgresConnection, logger: Logger) async throws {
        let date = day.description
        try await connection.query(
            """
            WITH totals AS (
                SELECT count(*) FILTER (WHERE is_consumed) AS consumed, count(*) FILTER (WHERE NOT is_consumed) AS scanned,
                    coalesce(sum(calories) FILTER (WHERE is_consumed), 0) AS calories,
                    coalesce(sum(protein) FILTER (WHERE is_consumed), 0) AS protein,
                    coalesce(sum(carbs) FILTER (WHERE is_consumed), 0) AS carbs,
                    coalesce(sum(fat) FILTER (WHERE is_consumed), 0) AS fat,
                    coalesce(sum(fiber) FILTER (WHERE is_consumed), 0) AS fiber,
                    avg(diet_score) FILTER (WHERE is_consumed) AS diet_score,
                    avg(health_score) FILTER (WHERE is_consumed) AS health_score
                FROM meals WHERE user_id = \(userId) AND local_date = \(date)::date AND has_state AND NOT deleted
            ), emptied AS (
                DELETE FROM daily_summaries WHERE user_id = \(userId) AND day = \(date)::date
                    AND (SELECT consumed + scanned FROM totals) = 0
            )
            INSERT INTO daily_summaries (user_id, day, consumed_count, scanned_count, calories, protein, carbs, fat, fiber,
                diet_score_mean, health_score_mean)
            SELECT \(userId), \(date)::date, consumed, scanned, calories, protein, carbs, fat, fiber, diet_score, health_score
            FROM totals WHERE consumed + scanned > 0
            ON CONFLICT (user_id, day) DO UPDATE SET consumed_count = EXCLUDED.consumed_count,
                scanned_count = EXCLUDED.scanned_count, calories = EXCLUDED.calories, protein = EXCLUDED.protein,
                carbs = EXCLUDED.carbs, fat = EXCLUDED.fat, fiber = EXCLUDED.fiber, diet_score_mean = EXCLUDED.diet_score_mean,
                health_score_mean = EXCLUDED.health_score_mean
            """, logger: logger)
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM daily_summaries WHERE user_id = \(userId)", logger: logger)
    }
}
