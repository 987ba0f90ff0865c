import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Meals' copy of the foods service's products, written by the `food.product_changed` handler (the highest version
/// wins: events of one product are ordered, but a replay may bring an older one) and read when meal items name
/// products. Every query logs to the caller's `logger`.
struct ProductCopyRepository: Sendable {
    func save(_ event: FoodProductChanged, on connection: PostgresConnection, logger: Logger) async throws {
        let json = String(decoding: try WireJSONEncoder.iso8601().encode(event), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO products (product_id, version, author_id, product) VALUES (\(event.productId), \(event.version), \(event.authorId), \(json)::jsonb)
            ON CONFLICT (product_id) DO UPDATE SET version = EXCLUDED.version, author_id = EXCLUDED.author_id, product = EXCLUDED.product
            WHERE products.version < EXCLUDED.version
            """, logger: logger)
    }

    /// The products with the given ids that meals knows of.
    func products(_ ids: Set<UUID>, client: PostgresPool, logger: Logger) async throws -> [UUID: PackagedProduct] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await client.query("SELECT product::text FROM products WHERE product_id = ANY(\(Array(ids)))", logger: logger)
        var found: [UUID: PackagedProduct] = [:]
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for try await json in rows.decode(String.self) {
            let product = PackagedProduct(event: try decoder.decode(FoodProductChanged.self, from: Data(json.utf8)))
            found[product.id] = product
        }
        return found
    }

    /// Which of `ids` the user's meals name (a product held after reports stays loggable for those who logged it).
    func namedInMeals(_ ids: Set<UUID>, of userId: UUID, client: PostgresPool, logger: Logger) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let rows = try await client.query(
            """
            SELECT DISTINCT (item ->> 'productId')::uuid FROM meals m, jsonb_array_elements(m.items) AS item
            WHERE m.user_id = \(userId) AND item ->> 'productId' = ANY(\(ids.map(\.lowercasedString)))
            """, logger: logger)
        var named: Set<UUID> = []
        for try await id in rows.decode(UUID.self) { named.insert(id) }
        return named
    }
}
