import BackendKit
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import SyncContracts
import WireJSON

/// SQL for custom meals, always scoped to the owner.
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct CustomMealRepository: Sendable {
    private static let columns = """
        SELECT id, user_id, name, meal_type, items::text, version, created_at, updated_at, modified_at, modified_tiebreak, change_seq,
               tags
        FROM custom_meals
        """

    /// Stores a new custom meal or replaces the caller's existing one with the same id, with the user's next change
    /// number (so take no row lock after it in this transaction).
    func save(_ meal: CustomMealRecord, on connection: PostgresConnection, logger: Logger) async throws {
        let items = String(decoding: try WireJSONEncoder().encode(meal.items), as: UTF8.self)
        let seq = try await SyncClock.next(for: meal.userId, on: connection, logger: logger)
        try await connection.query(
            """
            INSERT INTO custom_meals (id, user_id, name, meal_type, items, version, created_at, updated_at, modified_at,
                                      modified_tiebreak, change_seq, tags)
            VALUES (\(meal.id), \(meal.userId), \(meal.name), \(meal.mealType?.rawValue), \(items)::jsonb, \(meal.version),
                    \(meal.createdAt), \(meal.updatedAt), \(meal.modified.date), \(meal.modified.tiebreak), \(seq), \(meal.tags))
            ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, meal_type = EXCLUDED.meal_type, items = EXCLUDED.items,
                tags = EXCLUDED.tags,
                version = EXCLUDED.version, updated_at = EXCLUDED.updated_at, modified_at = EXCLUDED.modified_at,
                modified_tiebreak = EXCLUDED.modified_tiebreak, change_seq = EXCLUDED.change_seq
            WHERE custom_meals.user_id = EXCLUDED.user_id
            """, logger: logger)
    }

    /// Stores a new custom meal under its id; a taken id fails with a unique violation (23505), so a racing first
    /// write of one client id never replaces another's.
    func insert(_ meal: CustomMealRecord, on connection: PostgresConnection, logger: Logger) async throws {
        let items = String(decoding: try WireJSONEncoder().encode(meal.items), as: UTF8.self)
        let seq = try await SyncClock.next(for: meal.userId, on: connection, logger: logger)
        try await connection.query(
            """
            INSERT INTO custom_meals (id, user_id, name, meal_type, items, version, created_at, updated_at, modified_at,
                                      modified_tiebreak, change_seq, tags)
            VALUES (\(meal.id), \(meal.userId), \(meal.name), \(meal.mealType?.rawValue), \(items)::jsonb, \(meal.version),
                    \(meal.createdAt), \(meal.updatedAt), \(meal.modified.date), \(meal.modified.tiebreak), \(seq), \(meal.tags))
            """, logger: logger)
    }

    /// Whether no custom meal of any user has `id`.
    func isIdFree(_ id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("SELECT 1 FROM custom_meals WHERE id = \(id)", logger: logger)
        for try await _ in rows { return false }
        return true
    }

    /// The caller's custom meal.
    func find(_ id: UUID, userId: UUID, client: PostgresPool, logger: Logger) async throws -> CustomMealRecord? {
        try await client.withConnection { try await find(id, userId: userId, on: $0, logger: logger) }
    }

    /// The caller's custom meal, locked for update when read inside a transaction that will change it.
    func find(
        _ id: UUID, userId: UUID, on connection: PostgresConnection, forUpdate: Bool = false, logger: Logger
    ) async throws -> CustomMealRecord? {
        let sql = Self.columns + " WHERE id = $1 AND user_id = $2" + (forUpdate ? " FOR UPDATE" : "")
        var query = PostgresQuery(unsafeSQL: sql)
        query.binds.append(id, context: .default)
        query.binds.append(userId, context: .default)
        return try await records(connection.query(query, logger: logger)).first?.1
    }

    /// The caller's custom meals by name, after `after` (the last name and id of the previous page).
    func list(
        userId: UUID, after: (name: String, id: UUID)?, limit: Int, client: PostgresPool, logger: Logger
    ) async throws -> [CustomMealRecord] {
        var query = PostgresQuery(unsafeSQL: Self.columns + " WHERE user_id = $1 AND (name, id) > ($2, $3) ORDER BY name, id LIMIT $4")
        query.binds.append(userId, context: .default)
        query.binds.append(after?.name ?? "", context: .default)
        query.binds.append(after?.id ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), context: .default)
        query.binds.append(limit + 1, context: .default)
        return try await records(client.query(query, logger: logger)).map(\.1)
    }

    /// The user's custom meals written after change `since`, by change number, at most `limit`.
    func changed(
        userId: UUID, since: Int64, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [(Int64, CustomMealRecord)] {
        var query = PostgresQuery(unsafeSQL: Self.columns + " WHERE user_id = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3")
        query.binds.append(userId, context: .default)
        query.binds.append(since, context: .default)
        query.binds.append(limit, context: .default)
        return try await records(connection.query(query, logger: logger))
    }

    /// Deletes the caller's custom meal; false when there was none.
    func delete(_ id: UUID, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query("DELETE FROM custom_meals WHERE id = \(id) AND user_id = \(userId) RETURNING id", logger: logger)
            .collect().isEmpty == false
    }

    /// Deletes every custom meal of a user.
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM custom_meals WHERE user_id = \(userId)", logger: logger)
    }

    private func records(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> [(Int64, CustomMealRecord)] {
        var result: [(Int64, CustomMealRecord)] = []
        let decoder = JSONDecoder()
        for try await row in rows {
            let (id, userId, name, mealType, items, version, createdAt, updatedAt, modifiedAt, tiebreak, seq, tags) = try row.decode(
                (UUID, UUID, String, String?, String, Int, Date, Date, Date, String, Int64, [String]).self)
            result.append(
                (
                    seq,
                    CustomMealRecord(
                        id: id, userId: userId, name: name, mealType: mealType.flatMap(MealType.init(rawValue:)),
                        items: try decoder.decode([ItemRequest].self, from: Data(items.utf8)), version: version, createdAt: createdAt,
                        updatedAt: updatedAt, modified: WriteStamp(modifiedAt, tiebreak: tiebreak), tags: tags)
                ))
        }
        return result
    }
}
