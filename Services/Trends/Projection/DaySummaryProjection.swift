import Foundation
import Logging
import PostgresNIO
import ServiceDefaults

/// Keeps `daily_summaries` equal to an aggregate of the day's meals: every change of a meal recomputes the
/// days it touched, so redelivered, reordered and late events all converge on the same rows.
/// Every query logs to the consumer's `logger`.
struct DaySummaryProjection: Sendable {
    /// Recomputes every one of `days` from `meals` in one statement; a day left without meals loses its row.
    func recompute(_ days: Set<UserDay>, on connection: PostgresConnection, logger: Logger) async throws {
        guard !days.isEmpty else { return }
        let touched = Array(days)
        try await connection.query(
            """
            WITH touched AS (
                SELECT * FROM unnest(\(touched.map(\.userId))::uuid[], \(touched.map(\.day.description))::date[]) AS t(user_id, day)
            ), totals AS (
                SELECT t.user_id, t.day, count(m.meal_id) FILTER (WHERE m.is_consumed) AS consumed,
                    count(m.meal_id) FILTER (WHERE NOT m.is_consumed) AS scanned,
                    coalesce(sum(m.calories) FILTER (WHERE m.is_consumed), 0) AS calories,
                    coalesce(sum(m.protein) FILTER (WHERE m.is_consumed), 0) AS protein,
                    coalesce(sum(m.carbs) FILTER (WHERE m.is_consumed), 0) AS carbs,
                    coalesce(sum(m.fat) FILTER (WHERE m.is_consumed), 0) AS fat,
                    coalesce(sum(m.fiber) FILTER (WHERE m.is_consumed), 0) AS fiber,
                    avg(m.diet_score) FILTER (WHERE m.is_consumed) AS diet_score,
                    avg(m.health_score) FILTER (WHERE m.is_consumed) AS health_score
                FROM touched t
                LEFT JOIN meals m ON m.user_id = t.user_id AND m.local_date = t.day AND m.has_state AND NOT m.deleted
                GROUP BY t.user_id, t.day
            ), emptied AS (
                DELETE FROM daily_summaries s USING totals
                WHERE s.user_id = totals.user_id AND s.day = totals.day AND totals.consumed + totals.scanned = 0
            )
            INSERT INTO daily_summaries (user_id, day, consumed_count, scanned_count, calories, protein, carbs, fat, fiber,
                diet_score_mean, health_score_mean)
            SELECT user_id, day, consumed, scanned, calories, protein, carbs, fat, fiber, diet_score, health_score
            FROM totals WHERE consumed + scanned > 0
            ON CONFLICT (user_id, day) DO UPDATE SET consumed_count = EXCLUDED.consumed_count,
                scanned_count = EXCLUDED.scanned_count, calories = EXCLUDED.calories, protein = EXCLUDED.protein,
                carbs = EXCLUDED.carbs, fat = EXCLUDED.fat, fiber = EXCLUDED.fiber, diet_score_mean = EXCLUDED.diet_score_mean,
                health_score_mean = EXCLUDED.health_score_mean
            """, logger: logger)
    }

    /// Removes every summary of the user.
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM daily_summaries WHERE user_id = \(userId)", logger: logger)
    }
}
