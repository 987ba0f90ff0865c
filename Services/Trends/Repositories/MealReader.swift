import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Reads the `meals` read model; every query logs to the request's `logger`.
struct MealReader: Sendable {
    let client: PostgresPool

    /// The best (highest diet score, then health score) or worst consumed meals of `range`.
    func highlights(
        of userId: UUID, in range: ClosedRange<CalendarDate>, best: Bool, limit: Int, logger: Logger
    ) async throws -> [MealHighlight] {
        let order = best ? "diet_score DESC, health_score DESC NULLS LAST" : "diet_score ASC, health_score ASC NULLS LAST"
        let rows = try await client.query(
            """
            SELECT meal_id, title, local_date::text, eaten_at, meal_type, calories, diet_score, diet_band, health_score, health_rating
            FROM meals
            WHERE user_id = \(userId) AND has_state AND NOT deleted AND is_consumed
                AND local_date BETWEEN \(range.lowerBound.description)::date AND \(range.upperBound.description)::date
            ORDER BY \(unescaped: order), eaten_at DESC, meal_id LIMIT \(limit)
            """, logger: logger)
        var meals: [MealHighlight] = []
        for try await row in rows.decode((UUID, String, String, Date, String?, Double, Int, String, Int?, String?).self) {
            guard let date = CalendarDate(row.2) else { continue }
            meals.append(
                MealHighlight(
                    mealId: row.0, title: row.1, date: date, eatenAt: row.3, mealType: row.4, calories: row.5, dietScore: row.6,
                    dietBand: row.7, healthScore: row.8, healthRating: row.9))
        }
        return meals
    }

    /// Every meal of the user's `day` (consumed and scanned), in the order eaten.
    func meals(of userId: UUID, on day: CalendarDate, logger: Logger) async throws -> [MealSnapshot] {
        let rows = try await client.query(
            """
            SELECT snapshot::text FROM meals
            WHERE user_id = \(userId) AND local_date = \(day.description)::date AND has_state AND NOT deleted
            ORDER BY eaten_at, meal_id
            """, logger: logger)
        var meals: [MealSnapshot] = []
        for try await json in rows.decode(String.self) {
            meals.append(try Self.decoder.decode(MealSnapshot.self, from: Data(json.utf8)))
        }
        return meals
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
