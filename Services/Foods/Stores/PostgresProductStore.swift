import FoodData
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// `ProductStore` on the service's schema. A product's row, its version and its `food.product_changed` commit in one
/// transaction; one barcode is one row (`UNIQUE (gtin)`), so two users adding one barcode at once get one product and
/// one refusal. Search is pg_trgm's word similarity over names and brands (from schema `extensions`).
struct PostgresProductStore: ProductStore {
    let client: PostgresPool

    /// The smallest word similarity a search result needs: low enough for a typo or a missing letter in a word of
    /// six ("yoghurt" for "yogurt"), high enough to leave out names that merely share a syllable.
    static let minimumSimilarity = 0.4

    private static let columns = "id, gtin, source, author_id, details::text, version, status, created_at, updated_at, fetched_at"
    private typealias Row = (UUID, String, String, UUID?, String, Int, String, Date, Date, Date?)

    func product(id: UUID, logger: Logger) async throws -> Product? {
        try await first(client.query("SELECT \(unescaped: Self.columns) FROM products WHERE id = \(id)", logger: logger))
    }

    func product(gtins: [GTIN], logger: Logger) async throws -> Product? {
        let codes = gtins.map(\.digits)
        let found = try await all(client.query("SELECT \(unescaped: Self.columns) FROM products WHERE gtin = ANY(\(codes))", logger: logger))
        return gtins.lazy.compactMap { gtin in found.first { $0.gtin == gtin } }.first
    }

    func create(_ details: ProductDetails, gtin: GTIN, author: UUID, now: Date, logger: Logger) async throws -> ProductCreation {
        let product = Product(
            id: UUID(), gtin: gtin, source: .community, authorId: author, details: details, version: 1, status: .offered, createdAt: now,
            updatedAt: now, fetchedAt: nil)
        return try await client.transaction(logger: logger) { connection in
            let json = try Self.json(details)
            let inserted = try await connection.query(
                """
                INSERT INTO products (id, gtin, source, author_id, name, brand, details, version, status, created_at, updated_at)
                VALUES (\(product.id), \(gtin.digits), 'community', \(author), \(details.name), \(details.brand), \(json)::jsonb, 1,
                        'offered', \(now), \(now))
                ON CONFLICT (gtin) DO NOTHING RETURNING id
                """, logger: logger
            ).collect()
            guard !inserted.isEmpty else {
                let existing = try await first(
                    connection.query("SELECT \(unescaped: Self.columns) FROM products WHERE gtin = \(gtin.digits)", logger: logger).collect())
                guard let existing else { throw PostgresProductStoreError.vanished }
                return .duplicate(existing)
            }
            try await recordVersion(of: product, editor: author, on: connection, logger: logger)
            return .created(product)
        }
    }

    func storeFetched(_ details: ProductDetails, gtin: GTIN, now: Date, logger: Logger) async throws -> Product {
        try await client.transaction(logger: logger) { connection in
            let json = try Self.json(details)
            let rows = try await connection.query(
                """
                INSERT INTO products (id, gtin, source, name, brand, details, version, status, created_at, updated_at, fetched_at)
                VALUES (\(UUID()), \(gtin.digits), 'openfoodfacts', \(details.name), \(details.brand), \(json)::jsonb, 1, 'offered',
                        \(now), \(now), \(now))
                ON CONFLICT (gtin) DO UPDATE SET
                    name = EXCLUDED.name, brand = EXCLUDED.brand, details = EXCLUDED.details, fetched_at = EXCLUDED.fetched_at,
                    updated_at = EXCLUDED.updated_at,
                    version = products.version + CASE WHEN products.details = EXCLUDED.details THEN 0 ELSE 1 END
                WHERE products.source = 'openfoodfacts'
                RETURNING \(unescaped: Self.columns)
                """, logger: logger
            ).collect()
            guard let row = rows.first else {
                // A user's product took the barcode meanwhile: it is the answer.
                let existing = try await first(
                    connection.query("SELECT \(unescaped: Self.columns) FROM products WHERE gtin = \(gtin.digits)", logger: logger).collect())
                guard let existing else { throw PostgresProductStoreError.vanished }
                return existing
            }
            let product = try Self.product(from: try row.decode(Row.self))
            let versionStored = try await connection.query(
                "SELECT 1 FROM product_versions WHERE product_id = \(product.id) AND version = \(product.version)", logger: logger
            ).collect()
            if versionStored.isEmpty { try await recordVersion(of: product, editor: nil, on: connection, logger: logger) }
            return product
        }
    }

    func edit(
        id: UUID, editor: UUID, details: ProductDetails, expectedVersion: Int?, now: Date, logger: Logger
    ) async throws -> ProductEdit {
        try await client.transaction(logger: logger) { connection in
            guard
                var product = try await first(
                    connection.query("SELECT \(unescaped: Self.columns) FROM products WHERE id = \(id) FOR UPDATE", logger: logger).collect()),
                product.status != .removed
            else { return .notFound }
            guard product.authorId == editor else { return product.isVisible(to: editor) ? .notAuthor : .notFound }
            if let expectedVersion, expectedVersion != product.version { return .versionMismatch(current: product.version) }
            guard product.details != details else { return .edited(product) }
            product.details = details
            product.version += 1
            product.updatedAt = now
            let json = try Self.json(details)
            try await connection.query(
                """
                UPDATE products SET name = \(details.name), brand = \(details.brand), details = \(json)::jsonb,
                    version = \(product.version), updated_at = \(now)
                WHERE id = \(id)
                """, logger: logger)
            try await recordVersion(of: product, editor: editor, on: connection, logger: logger)
            return .edited(product)
        }
    }

    func versions(of id: UUID, logger: Logger) async throws -> [ProductVersion] {
        let rows = try await client.query(
            "SELECT version, details::text, edited_at FROM product_versions WHERE product_id = \(id) ORDER BY version DESC", logger: logger)
        var versions: [ProductVersion] = []
        for try await (version, details, editedAt) in rows.decode((Int, String, Date).self) {
            versions.append(ProductVersion(version: version, details: try Self.details(details), editedAt: editedAt))
        }
        return versions
    }

    func products(authoredBy author: UUID, limit: Int, logger: Logger) async throws -> [Product] {
        try await all(
            client.query(
                """
                SELECT \(unescaped: Self.columns) FROM products WHERE author_id = \(author) AND status <> 'removed'
                ORDER BY created_at DESC, id LIMIT \(limit)
                """, logger: logger))
    }

    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, holdAt: Int, now: Date, logger: Logger
    ) async throws -> ReportOutcome {
        try await client.transaction(logger: logger) { connection in
            guard
                var product = try await first(
                    connection.query("SELECT \(unescaped: Self.columns) FROM products WHERE id = \(productId) FOR UPDATE", logger: logger)
                        .collect()),
                product.isVisible(to: reporter)
            else { return .notFound }
            if product.authorId == reporter { return .ownProduct }
            try await connection.query(
                """
                INSERT INTO product_reports (product_id, reporter_id, reason, note, reported_at)
                VALUES (\(productId), \(reporter), \(reason.rawValue), \(note), \(now))
                ON CONFLICT (product_id, reporter_id) WHERE reporter_id IS NOT NULL DO NOTHING
                """, logger: logger)
            var reports = 0
            for try await count in try await connection.query(
                "SELECT count(*) FROM product_reports WHERE product_id = \(productId)", logger: logger
            ).decode(Int.self) { reports = count }
            if product.status == .offered && reports >= holdAt {
                product.status = .held
                product.version += 1
                product.updatedAt = now
                try await connection.query(
                    "UPDATE products SET status = 'held', held_at = \(now), version = \(product.version), updated_at = \(now) WHERE id = \(productId)",
                    logger: logger)
                try await recordVersion(of: product, editor: nil, on: connection, logger: logger)
                logger.warning(
                    "product held back after reports", metadata: ["product_id": .string(productId.lowercasedString), "reports": "\(reports)"])
            }
            return .recorded(reports: reports, held: product.status == .held)
        }
    }

    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])] {
        let held = try await all(
            client.query(
                "SELECT \(unescaped: Self.columns) FROM products WHERE status = 'held' ORDER BY held_at, id LIMIT \(limit)", logger: logger))
        var result: [(product: Product, reports: [ProductReport])] = []
        for product in held {
            let rows = try await client.query(
                "SELECT reason, note, reported_at FROM product_reports WHERE product_id = \(product.id) ORDER BY reported_at", logger: logger)
            var reports: [ProductReport] = []
            for try await (reason, note, reportedAt) in rows.decode((String, String?, Date).self) {
                reports.append(ProductReport(reason: ProductReport.Reason(rawValue: reason) ?? .other, note: note, reportedAt: reportedAt))
            }
            result.append((product, reports))
        }
        return result
    }

    func review(id: UUID, decision: ReviewDecision, now: Date, logger: Logger) async throws -> Product? {
        try await client.transaction(logger: logger) { connection in
            guard
                var product = try await first(
                    connection.query("SELECT \(unescaped: Self.columns) FROM products WHERE id = \(id) FOR UPDATE", logger: logger).collect())
            else { return nil }
            let status: Product.Status = decision == .reinstate ? .offered : .removed
            guard product.status != status else { return product }
            product.status = status
            product.version += 1
            product.updatedAt = now
            try await connection.query(
                """
                UPDATE products SET status = \(status.rawValue), held_at = NULL, version = \(product.version), updated_at = \(now)
                WHERE id = \(id)
                """, logger: logger)
            // Reinstated: the reports were looked at; new ones count from zero.
            if decision == .reinstate { try await connection.query("DELETE FROM product_reports WHERE product_id = \(id)", logger: logger) }
            try await recordVersion(of: product, editor: nil, on: connection, logger: logger)
            return product
        }
    }

    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)] {
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                "SELECT set_config('pg_trgm.word_similarity_threshold', \(String(Self.minimumSimilarity)), true)", logger: logger)
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.columns),
                       greatest(extensions.word_similarity(\(query), name), 0.9 * extensions.word_similarity(\(query), coalesce(brand, ''))) AS relevance
                FROM products
                WHERE (\(query) OPERATOR(extensions.<%) name OR \(query) OPERATOR(extensions.<%) brand)
                  AND (status = 'offered' OR (status = 'held' AND author_id = \(caller)))
                ORDER BY relevance DESC, name, id
                LIMIT \(limit)
                """, logger: logger)
            var found: [(product: Product, relevance: Double)] = []
            for try await row in rows {
                let values = try row.decode((UUID, String, String, UUID?, String, Int, String, Date, Date, Date?, Double).self)
                let product = try Self.product(
                    from: (values.0, values.1, values.2, values.3, values.4, values.5, values.6, values.7, values.8, values.9))
                found.append((product, min(1, max(0, values.10))))
            }
            return found
        }
    }

    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool {
        try await !client.query(
            "SELECT 1 FROM barcode_misses WHERE gtin = \(gtin.digits) AND checked_at >= \(since)", logger: logger
        ).collect().isEmpty
    }

    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO barcode_misses (gtin, checked_at) VALUES (\(gtin.digits), \(now))
            ON CONFLICT (gtin) DO UPDATE SET checked_at = EXCLUDED.checked_at
            """, logger: logger)
    }

    /// Drops `userId` from every product they added (each published again, next version), every version they made
    /// and every report they sent, in the consumer's transaction; the products and reports stay. Returns how many
    /// products lost their author.
    func forgetUser(_ userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query(
            """
            UPDATE products SET author_id = NULL, version = version + 1, updated_at = \(now) WHERE author_id = \(userId)
            RETURNING \(unescaped: Self.columns)
            """, logger: logger
        ).collect()
        for row in rows {
            try await recordVersion(of: try Self.product(from: try row.decode(Row.self)), editor: nil, on: connection, logger: logger)
        }
        try await connection.query("UPDATE product_versions SET editor_id = NULL WHERE editor_id = \(userId)", logger: logger)
        try await connection.query("UPDATE product_reports SET reporter_id = NULL WHERE reporter_id = \(userId)", logger: logger)
        return rows.count
    }

    // MARK: Rows

    /// Records the product's current version and appends its `food.product_changed`.
    private func recordVersion(of product: Product, editor: UUID?, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO product_versions (product_id, version, details, editor_id, edited_at)
            VALUES (\(product.id), \(product.version), \(try Self.json(product.details))::jsonb, \(editor), \(product.updatedAt))
            ON CONFLICT (product_id, version) DO NOTHING
            """, logger: logger)
        try await Outbox.append(product.changedEnvelope, on: connection, logger: logger)
    }

    private func first(_ rows: PostgresRows) async throws -> Product? { try await all(rows).first }
    private func first(_ rows: [PostgresRow]) async throws -> Product? {
        try rows.first.map { try Self.product(from: try $0.decode(Row.self)) }
    }

    private func all(_ rows: PostgresRows) async throws -> [Product] {
        var products: [Product] = []
        for try await row in rows.decode(Row.self) { products.append(try Self.product(from: row)) }
        return products
    }

    private static func product(from row: Row) throws -> Product {
        let (id, gtin, source, author, details, version, status, createdAt, updatedAt, fetchedAt) = row
        guard let barcode = GTIN(gtin), let source = Product.Source(rawValue: source), let status = Product.Status(rawValue: status) else {
            throw PostgresProductStoreError.unreadableRow(id)
        }
        return Product(
            id: id, gtin: barcode, source: source, authorId: author, details: try Self.details(details), version: version, status: status,
            createdAt: createdAt, updatedAt: updatedAt, fetchedAt: fetchedAt)
    }

    private static func json(_ details: ProductDetails) throws -> String {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(details), as: UTF8.self)
    }

    private static func details(_ json: String) throws -> ProductDetails {
        try JSONDecoder().decode(ProductDetails.self, from: Data(json.utf8))
    }
}

/// What the store cannot make sense of: never a client's doing.
enum PostgresProductStoreError: Error, CustomStringConvertible {
    /// A stored row with a barcode, source or status the service does not know.
    case unreadableRow(UUID)
    /// The row that refused an insert was gone when read.
    case vanished

    var description: String {
        switch self {
        case .unreadableRow(let id): "product \(id.lowercasedString) has a stored value this version cannot read"
        case .vanished: "the product holding a barcode was removed while being read"
        }
    }
}
