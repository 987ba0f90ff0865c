import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Reads the food table: all of it for the in-memory catalog, one food with every nutrient for `GET /api/foods/:id`.
/// Every query logs to the caller's `logger` (the request's, or the catalog loader's).
struct FoodRepository: Sendable {
    let client: PostgresPool

    /// Every food with what analysis and scoring need.
    func allFoods(logger: Logger) async throws -> [FoodRecord] {
        let decoder = JSONDecoder()
        let rows = try await client.query(
            """
            SELECT id, name, calories, protein, carbs, fat, fiber, sugars, saturated_fat, sodium, measures::text, traits::text
            FROM foods ORDER BY id
            """, logger: logger)
        var foods: [FoodRecord] = []
        for try await (id, name, calories, protein, carbs, fat, fiber, sugars, saturated, sodium, measures, traits) in rows.decode(
            (String, String, Double, Double, Double, Double, Double, Double, Double, Double, String, String).self)
        {
            foods.append(
                FoodRecord(
                    id: id, name: name, group: FoodGroup(foodId: id),
                    per100g: NutrientProfile(
                        calories: calories, protein: protein, carbs: carbs, fat: fat, fiber: fiber, sugars: sugars,
                        saturatedFat: saturated, sodium: sodium),
                    measures: try decoder.decode([HouseholdMeasure].self, from: Data(measures.utf8)),
                    traits: try decoder.decode(FoodTraits.self, from: Data(traits.utf8))))
        }
        return foods
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
