import EventContracts
import Foundation
import Logging
import PostgresNIO
import ServiceDefaults
import WireJSON

/// The `meals` read model: the newest known state of every meal. Versions decide, never arrival order:
/// a copy older than the stored one changes nothing, and a deletion leaves a tombstone so that a late,
/// older copy cannot bring the meal back.
/// Every query logs to the consumer's `logger`.
struct MealProjection: Sendable {
    /// Applies a full-state copy of a meal; returns the days whose summaries it changes (its day, and the
    /// day it moved from), empty when the copy was stale.
    func apply(_ meal: MealSnapshot, on connection: PostgresConnection, logger: Logger) async throws -> Set<CalendarDate> {
        Set(try await apply(distinct: [meal], on: connection, logger: logger).map(\.day))
    }

    /// Applies full-state copies of distinct meals in one statement; returns the user days whose summaries the applied
    /// ones change (each one's day, and the day it moved from). A copy applies when it is newer than the stored row, or
    /// of the same version as a row that has no state yet, and never to another user's meal or over a tombstone.
    func apply(distinct meals: [MealSnapshot], on connection: PostgresConnection, logger: Logger) async throws -> Set<UserDay> {
        guard !meals.isEmpty else { return [] }
        for meal in meals where CalendarDate(meal.localDate) == nil { throw ProjectionError.unreadableDate(meal.localDate) }
        let snapshots = try meals.map { String(decoding: try Self.encoder.encode($0), as: UTF8.self) }
        let totals = meals.map(\.totals)
        // The optional columns (meal type, health score and rating) come from each snapshot: arrays bind no nulls.
        let rows = try await connection.query(
            """
            WITH incoming AS (
                SELECT * FROM unnest(\(meals.map(\.mealId))::uuid[], \(meals.map(\.userId))::uuid[], \(meals.map(\.version))::int[],
                    \(meals.map(\.isConsumed))::bool[], \(meals.map(\.localDate))::date[], \(meals.map(\.eatenAt))::timestamptz[],
                    \(meals.map(\.title))::text[], \(totals.map(\.calories))::float8[], \(totals.map(\.proteinGrams))::float8[],
                    \(totals.map(\.carbsGrams))::float8[], \(totals.map(\.fatGrams))::float8[], \(totals.map(\.fiberGrams))::float8[],
                    \(meals.map(\.dietScore))::int[], \(meals.map(\.dietBand))::text[], \(snapshots)::jsonb[])
                    AS i(meal_id, user_id, version, is_consumed, local_date, eaten_at, title, calories, protein, carbs, fat, fiber,
                        diet_score, diet_band, snapshot)
            ), previous AS (SELECT meal_id, local_date FROM meals WHERE meal_id IN (SELECT meal_id FROM incoming))
            INSERT INTO meals (meal_id, user_id, version, has_state, deleted, is_consumed, local_date, eaten_at, title, meal_type,
                calories, protein, carbs, fat, fiber, health_score, health_rating, diet_score, diet_band, snapshot)
            SELECT meal_id, user_id, version, true, false, is_consumed, local_date, eaten_at, title, snapshot ->> 'mealType',
                calories, protein, carbs, fat, fiber, (snapshot ->> 'healthScore')::int, snapshot ->> 'healthRating', diet_score,
                diet_band, snapshot
            FROM incoming
            ON CONFLICT (meal_id) DO UPDATE SET version = EXCLUDED.version, has_state = true, is_consumed = EXCLUDED.is_consumed,
                local_date = EXCLUDED.local_date, eaten_at = EXCLUDED.eaten_at, title = EXCLUDED.title, meal_type = EXCLUDED.meal_type,
                calories = EXCLUDED.calories, protein = EXCLUDED.protein, carbs = EXCLUDED.carbs, fat = EXCLUDED.fat,
                fiber = EXCLUDED.fiber, health_score = EXCLUDED.health_score, health_rating = EXCLUDED.health_rating,
                diet_score = EXCLUDED.diet_score, diet_band = EXCLUDED.diet_band, snapshot = EXCLUDED.snapshot
            WHERE meals.user_id = EXCLUDED.user_id AND NOT meals.deleted
                AND (meals.version < EXCLUDED.version OR (meals.version = EXCLUDED.version AND NOT meals.has_state))
            RETURNING meals.user_id, meals.local_date::text, (SELECT p.local_date::text FROM previous p WHERE p.meal_id = meals.meal_id)
            """, logger: logger)
        var days = Set<UserDay>()
        for try await (userId, day, previous) in rows.decode((UUID, String, String?).self) {
            if let date = CalendarDate(day) { days.insert(UserDay(userId: userId, day: date)) }
            if let previous, let date = CalendarDate(previous) { days.insert(UserDay(userId: userId, day: date)) }
        }
        return days
    }

    /// Applies `meal.deleted`: `deleted` leaves a tombstone; `unconsumed` keeps the meal as scanned only. The stored
    /// content stays the meal's state only when it is the version just before; after a gap (events of other topics
    /// overtaken, as while working through a backlog) the row waits without state for the full copy of this version,
    /// which meals always sends beside the unconsume, so an edit in the gap is not lost.
    func apply(_ deletion: MealDeleted, on connection: PostgresConnection, logger: Logger) async throws -> Set<CalendarDate> {
        let rows: PostgresRowSequence
        switch deletion.reason {
        case "deleted":
            rows = try await connection.query(
                """
                WITH previous AS (SELECT local_date::text AS day FROM meals WHERE meal_id = \(deletion.mealId))
                INSERT INTO meals (meal_id, user_id, version, has_state, deleted)
                VALUES (\(deletion.mealId), \(deletion.userId), \(deletion.version), false, true)
                ON CONFLICT (meal_id) DO UPDATE SET version = EXCLUDED.version, deleted = true, is_consumed = false, title = NULL,
                    snapshot = NULL
                WHERE meals.user_id = EXCLUDED.user_id AND meals.version < EXCLUDED.version
                RETURNING (SELECT day FROM previous)
                """, logger: logger)
        case "unconsumed":
            rows = try await connection.query(
                """
                WITH previous AS (SELECT local_date::text AS day FROM meals WHERE meal_id = \(deletion.mealId))
                INSERT INTO meals (meal_id, user_id, version, has_state, is_consumed)
                VALUES (\(deletion.mealId), \(deletion.userId), \(deletion.version), false, false)
                ON CONFLICT (meal_id) DO UPDATE SET version = EXCLUDED.version, is_consumed = false,
                    snapshot = jsonb_set(meals.snapshot, '{isConsumed}', 'false'),
                    has_state = meals.has_state AND meals.version = EXCLUDED.version - 1
                WHERE meals.user_id = EXCLUDED.user_id AND NOT meals.deleted AND meals.version < EXCLUDED.version
                RETURNING (SELECT day FROM previous)
                """, logger: logger)
        default:
            throw ProjectionError.unknownDeletionReason(deletion.reason)
        }
        return try await Self.changedDays(rows, plus: nil)
    }

    /// Removes every meal of the user, tombstones included.
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM meals WHERE user_id = \(userId)", logger: logger)
    }

    /// The previous day of an applied change (and `day`), or nothing when no row came back (a stale copy).
    private static func changedDays(_ rows: PostgresRowSequence, plus day: CalendarDate?) async throws -> Set<CalendarDate> {
        var days: Set<CalendarDate> = []
        var applied = false
        for try await previous in rows.decode(String?.self) {
            applied = true
            if let previous, let date = CalendarDate(previous) { days.insert(date) }
        }
        guard applied else { return [] }
        if let day { days.insert(day) }
        return days
    }

    static let encoder: JSONEncoder = {
        let encoder = WireJSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
