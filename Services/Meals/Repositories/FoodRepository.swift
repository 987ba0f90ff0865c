import FoodData
import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Reads the food table: all of it for the in-memory catalog, one food with every nutrient for `GET /api/foods/:id`.
/// Every query logs to the caller's `logger` (the request's, or the catalog loader's).
struct FoodRepository: Sendable {
    let client: PostgresPool

    /// Every food with what analysis and scoring need, in id order. The table comes as one JSON array in one cell and
    /// is decoded in one pass: row by row (12 cells and two JSON documents a food, 8,800 foods), reading it took most
    /// of the catalog's start-up in a debug build.
    func allFoods(logger: Logger) async throws -> [FoodRecord] {
        let rows = try await client.query(
            """
            SELECT coalesce(json_agg(json_build_object(
                'id', id, 'name', name, 'calories', calories, 'protein', protein, 'carbs', carbs, 'fat', fat,
                'fiber', fiber, 'sugars', sugars, 'saturatedFat', saturated_fat, 'sodium', sodium,
                'measures', measures, 'traits', traits) ORDER BY id), '[]')::text
            FROM foods
            """, logger: logger)
        var table = "[]"
        for try await json in rows.decode(String.self) { table = json }
        return try JSONDecoder().decode([FoodRow].self, from: Data(table.utf8)).map(\.record)
    }

    /// Every nutrient of one food per 100 g, by the table's names.
    func nutrients(of id: String, logger: Logger) async throws -> [String: Double]? {
        let rows = try await client.query("SELECT nutrients::text FROM foods WHERE id = \(id)", logger: logger)
        for try await json in rows.decode(String.self) {
            return try JSONDecoder().decode([String: Double].self, from: Data(json.utf8))
        }
        return nil
    }
}
