import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// SQL for custom meals, always scoped to the owner.
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct CustomMealRepository: Sendable {
    /// Stores a new custom meal or replaces the caller's existing one with the same id.
    func save(_ meal: CustomMealRecord, client: PostgresPool, logger: Logger) async throws {
        let items = String(decoding: try JSONEncoder().encode(meal.items), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO custom_meals (id, user_id, name, meal_type, items, version, created_at, updated_at)
            VALUES (\(meal.id), \(meal.userId), \(meal.name), \(meal.mealType?.rawValue), \(items)::jsonb, \(meal.version),
                    \(meal.createdAt), \(meal.updatedAt))
            ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, meal_type = EXCLUDED.meal_type, items = EXCLUDED.items,
                version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
            WHERE custom_meals.user_id = EXCLUDED.user_id
            """, logger: logger)
    }

    /// The caller's custom meal.
    func find(_ id: UUID, userId: UUID, client: PostgresPool, logger: Logger) async throws -> CustomMealRecord? {
        try await records(
            client.query(
                """
                SELECT id, user_id, name, meal_type, items::text, version, created_at, updated_at
                FROM custom_meals WHERE id = \(id) AND user_id = \(userId)
                """, logger: logger)
        ).first
    }

    /// The caller's custom meals by name, after `after` (the last name and id of the previous page).
    func list(
        userId: UUID, after: (name: String, id: UUID)?, limit: Int, client: PostgresPool, logger: Logger
    ) async throws -> [CustomMealRecord] {
        let afterName = after?.name ?? ""
        let afterId = after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        return try await records(
            client.query(
                """
                SELECT id, user_id, name, meal_type, items::text, version, created_at, updated_at
                FROM custom_meals WHERE user_id = \(userId) AND (name, id) > (\(afterName), \(afterId))
                ORDER BY name, id LIMIT \(limit + 1)
                """, logger: logger))
    }

    /// Deletes the caller's custom meal; false when there was none.
    func delete(_ id: UUID, userId: UUID, client: PostgresPool, logger: Logger) async throws -> Bool {
        try await client.query("DELETE FROM custom_meals WHERE id = \(id) AND user_id = \(userId) RETURNING id", logger: logger)
            .collect().isEmpty == false
    }

    /// Deletes every custom meal of a user.
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM custom_meals WHERE user_id = \(userId)", logger: logger)
    }

    private func records(_ rows: PostgresRows) async throws -> [CustomMealRecord] {
        var result: [CustomMealRecord] = []
        let decoder = JSONDecoder()
        for try await (id, userId, name, mealType, items, version, createdAt, updatedAt) in rows.decode(
            (UUID, UUID, String, String?, String, Int, Date, Date).self)
        {
            result.append(
                CustomMealRecord(
                    id: id, userId: userId, name: name, mealType: mealType.flatMap(MealType.init(rawValue:)),
                    items: try decoder.decode([ItemRequest].self, from: Data(items.utf8)), version: version, createdAt: createdAt,
                    updatedAt: updatedAt))
        }
        return result
    }
}
