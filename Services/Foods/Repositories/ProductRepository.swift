import FoodData
import Foundation
import Logging
import PostgresNIO
import WireJSON

/// The SQL of products, their versions and reports, and Open Food Facts' misses. Every method takes the connection
/// (so several join one transaction, opened by `PostgresProductStore`) and the caller's logger. A barcode holds at
/// most one product of each source (`UNIQUE (gtin, source)`). Search is pg_trgm's word similarity over names and
/// brands, from schema `extensions`.
struct ProductRepository: Sendable {
    /// The smallest word similarity a search result needs: low enough for a typo or a missing letter in a word of
    /// six ("yoghurt" for "yogurt"), high enough to leave out names that merely share a syllable.
    static let minimumSimilarity = 0.4
    /// How much how often a product was logged moves it up among matches: ln(1 + meals) times this is added to its
    /// similarity when ranking (a product in 100 meals gains about 0.23, as much as a better spelling match).
    static let popularityWeight = 0.05

    /// The columns every product query reads, in `Row`'s order (`product(from:)`).
    static let columns = "id, gtin, source, author_id, details::text, version, status, created_at, updated_at, fetched_at"
    private typealias Row = (UUID, String, String, UUID?, String, Int, String, Date, Date, Date?)

    // MARK: Products

    /// The product with `id`; locked for the transaction with `forUpdate`.
    func product(id: UUID, forUpdate: Bool = false, on connection: PostgresConnection, logger: Logger) async throws -> Product? {
        let lock = forUpdate ? " FOR UPDATE" : ""
        return try await products(
            connection.query("SELECT \(unescaped: Self.columns) FROM products WHERE id = \(id)\(unescaped: lock)", logger: logger)
        ).first
    }

    /// The products stored under any of `gtins` (`ProductsByBarcodeStatement`, the look-up's own query).
    func products(gtins: [GTIN], on connection: PostgresConnection, logger: Logger) async throws -> [Product] {
        var found: [Product] = []
        for try await product in try await connection.execute(ProductsByBarcodeStatement(gtins: gtins), logger: logger) { found.append(product) }
        return found
    }

    /// Inserts a user's new product unless its barcode has one; whether it was inserted.
    func insert(_ product: Product, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let details = product.details
        return try await !connection.query(
            """
            INSERT INTO products (id, gtin, source, author_id, name, brand, details, version, status, created_at, updated_at, fetched_at)
            VALUES (\(product.id), \(product.gtin.digits), \(product.source.rawValue), \(product.authorId), \(details.name), \(details.brand),
                    \(try Self.json(details))::jsonb, \(product.version), \(product.status.rawValue), \(product.createdAt), \(product.updatedAt),
                    \(product.fetchedAt))
            ON CONFLICT (gtin, source) DO NOTHING RETURNING id
            """, logger: logger
        ).collect().isEmpty
    }

    /// Stores Open Food Facts' `details` for `gtin`: a new product, or the refresh of one fetched before (its version
    /// grows only when the details changed).
    func upsertFetched(_ details: ProductDetails, gtin: GTIN, now: Date, on connection: PostgresConnection, logger: Logger) async throws
        -> Product
    {
        let stored = try await products(
            connection.query(
                """
                INSERT INTO products (id, gtin, source, name, brand, details, version, status, created_at, updated_at, fetched_at)
                VALUES (\(UUID()), \(gtin.digits), 'openfoodfacts', \(details.name), \(details.brand), \(try Self.json(details))::jsonb, 1,
                        'offered', \(now), \(now), \(now))
                ON CONFLICT (gtin, source) DO UPDATE SET
                    name = EXCLUDED.name, brand = EXCLUDED.brand, details = EXCLUDED.details, fetched_at = EXCLUDED.fetched_at,
                    updated_at = EXCLUDED.updated_at,
                    version = products.version + CASE WHEN products.details = EXCLUDED.details THEN 0 ELSE 1 END
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
        ).first
        guard let stored else { throw ProductBarcodeVanished(gtin: gtin) }
        return stored
    }

    /// How many products `author` added since `since`, and when the first of them was added.
    func creations(by author: UUID, since: Date, on connection: PostgresConnection, logger: Logger) async throws -> (count: Int, first: Date?) {
        var found: (count: Int, first: Date?) = (0, nil)
        let rows = try await connection.query(
            """
            SELECT count(*), min(created_at) FROM products
            WHERE author_id = \(author) AND source = 'community' AND created_at > \(since)
            """, logger: logger)
        for try await (count, first) in rows.decode((Int, Date?).self) { found = (count, first) }
        return found
    }

    /// Takes the transaction's lock on `userId`'s daily limits, so that two of their requests at once count each other.
    func lockLimits(of userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(\(Self.limitsLockClass), hashtext(\(userId.lowercasedString)))", logger: logger)
    }

    /// The class of the advisory locks `lockLimits` takes (the first of their two keys), apart from the migrations'.
    static let limitsLockClass: Int32 = 50_009

    /// Writes the product's details, version, status and times as they are now.
    func update(_ product: Product, on connection: PostgresConnection, logger: Logger) async throws {
        let details = product.details
        let heldAt = product.status == .held ? product.updatedAt : nil
        try await connection.query(
            """
            UPDATE products SET name = \(details.name), brand = \(details.brand), details = \(try Self.json(details))::jsonb,
                version = \(product.version), status = \(product.status.rawValue), author_id = \(product.authorId),
                updated_at = \(product.updatedAt), held_at = CASE WHEN \(heldAt)::timestamptz IS NULL THEN NULL ELSE coalesce(held_at, \(heldAt)) END
            WHERE id = \(product.id)
            """, logger: logger)
    }

    /// The products `author` added (any status but removed), newest first.
    func products(authoredBy author: UUID, limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [Product] {
        try await products(
            connection.query(
                """
                SELECT \(unescaped: Self.columns) FROM products WHERE author_id = \(author) AND status <> 'removed'
                ORDER BY created_at DESC, id LIMIT \(limit)
                """, logger: logger))
    }

    /// The products held after reports, oldest hold first.
    func held(limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [Product] {
        try await products(
            connection.query(
                "SELECT \(unescaped: Self.columns) FROM products WHERE status = 'held' ORDER BY held_at, id LIMIT \(limit)", logger: logger))
    }

    /// Products reported but not held (any status but held and removed), the most recently reported first.
    func reported(limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [Product] {
        try await products(
            connection.query(
                """
                SELECT \(unescaped: Self.columns) FROM products
                JOIN (SELECT product_id, max(reported_at) AS last_report FROM product_reports GROUP BY product_id) AS r ON r.product_id = products.id
                WHERE status = 'offered' ORDER BY r.last_report DESC, id LIMIT \(limit)
                """, logger: logger))
    }

    /// Whether a consumed meal of `userId` names the product.
    func hasLogged(_ productId: UUID, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await !connection.query(
            "SELECT 1 FROM product_uses WHERE product_id = \(productId) AND user_id = \(userId) LIMIT 1", logger: logger
        ).collect().isEmpty
    }

    /// For each of `ids` that any has, how many accounts other than the product's author logged it, counting only
    /// the accounts `rule` holds established at `now`.
    func confirmations(
        of ids: [UUID], rule: EstablishedAccountRule, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> [UUID: Int] {
        let rows = try await connection.query(
            """
            SELECT u.product_id, count(DISTINCT u.user_id)::int8
            FROM product_uses u JOIN products p ON p.id = u.product_id
            LEFT JOIN known_accounts a ON a.user_id = u.user_id
            WHERE u.product_id = ANY(\(ids)) AND u.user_id IS DISTINCT FROM p.author_id
              AND (\(rule.isOff) OR (a.first_seen_at <= \(rule.seenBy(now)) AND a.logged_meals >= \(rule.minimumLoggedMeals)))
            GROUP BY u.product_id
            """, logger: logger)
        var counts: [UUID: Int] = [:]
        for try await (id, count) in rows.decode((UUID, Int).self) { counts[id] = count }
        return counts
    }

    /// The Open Food Facts products of `gtins`, any status.
    func openFoodFactsProducts(of gtins: [GTIN], on connection: PostgresConnection, logger: Logger) async throws -> [Product] {
        try await products(
            connection.query(
                "SELECT \(unescaped: Self.columns) FROM products WHERE source = 'openfoodfacts' AND gtin = ANY(\(gtins.map(\.digits)))",
                logger: logger))
    }

    /// Products whose name or brand is like `query`, that `caller` may see (offered ones, and held ones they added or
    /// logged), users' ones whose barcode has a complete offered Open Food Facts product left out,
    /// ranked by similarity and how often they were logged (`popularityWeight`), each with its similarity 0...1 as its
    /// relevance. Sets pg_trgm's threshold for the transaction it runs in.
    func search(_ query: String, caller: UUID, limit: Int, on connection: PostgresConnection, logger: Logger) async throws
        -> [(product: Product, relevance: Double)]
    {
        try await connection.query(
            "SELECT set_config('pg_trgm.word_similarity_threshold', \(String(Self.minimumSimilarity)), true)", logger: logger)
        let rows = try await connection.query(
            """
            SELECT id, gtin, source, author_id, details, version, status, created_at, updated_at, fetched_at, relevance
            FROM (
                SELECT \(unescaped: Self.columns), name,
                       greatest(extensions.word_similarity(\(query), name), 0.9 * extensions.word_similarity(\(query), coalesce(brand, ''))) AS relevance,
                       (SELECT count(*) FROM product_uses u WHERE u.product_id = products.id)::float8 AS uses
                FROM products
                WHERE (\(query) OPERATOR(extensions.<%) name OR \(query) OPERATOR(extensions.<%) brand)
                  AND (status = 'offered' OR (status = 'held' AND (author_id = \(caller) OR EXISTS (
                      SELECT 1 FROM product_uses mine WHERE mine.product_id = products.id AND mine.user_id = \(caller)))))
                  AND NOT (source = 'community' AND EXISTS (
                      SELECT 1 FROM products fetched WHERE fetched.gtin = products.gtin AND fetched.source = 'openfoodfacts' AND fetched.status = 'offered'
                        AND \(unescaped: Self.completeDetails("fetched.details"))))
            ) AS found
            ORDER BY relevance + \(Self.popularityWeight) * ln(1 + uses) DESC, name, id
            LIMIT \(limit)
            """, logger: logger)
        var found: [(product: Product, relevance: Double)] = []
        for try await row in rows {
            let values = try row.decode((UUID, String, String, UUID?, String, Int, String, Date, Date, Date?, Double).self)
            let product = try Self.product(from: (values.0, values.1, values.2, values.3, values.4, values.5, values.6, values.7, values.8, values.9))
            found.append((product, min(1, max(0, values.10))))
        }
        return found
    }

    /// Drops `author` from every product they added, each with its next version at `now`; the products as they are now.
    func releaseProducts(of author: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> [Product] {
        try await products(
            connection.query(
                """
                UPDATE products SET author_id = NULL, version = version + 1, updated_at = \(now) WHERE author_id = \(author)
                RETURNING \(unescaped: Self.columns)
                """, logger: logger))
    }

    // MARK: Versions

    /// Records the product's current version (once).
    func recordVersion(of product: Product, editor: UUID?, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO product_versions (product_id, version, details, editor_id, edited_at)
            VALUES (\(product.id), \(product.version), \(try Self.json(product.details))::jsonb, \(editor), \(product.updatedAt))
            ON CONFLICT (product_id, version) DO NOTHING
            """, logger: logger)
    }

    /// Whether the product's `version` is recorded.
    func hasVersion(_ version: Int, of id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await !connection.query(
            "SELECT 1 FROM product_versions WHERE product_id = \(id) AND version = \(version)", logger: logger
        ).collect().isEmpty
    }

    /// Every version of a product, newest first.
    func versions(of id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [ProductVersion] {
        let rows = try await connection.query(
            "SELECT version, details::text, edited_at FROM product_versions WHERE product_id = \(id) ORDER BY version DESC", logger: logger)
        var versions: [ProductVersion] = []
        for try await (version, details, editedAt) in rows.decode((Int, String, Date).self) {
            versions.append(ProductVersion(version: version, details: try Self.details(details), editedAt: editedAt))
        }
        return versions
    }

    /// Drops `editor` from every version they made.
    func forgetEditor(_ editor: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE product_versions SET editor_id = NULL WHERE editor_id = \(editor)", logger: logger)
    }

    // MARK: Reports

    /// Records `reporter`'s report unless they reported the product before.
    func addReport(to productId: UUID, by reporter: UUID, _ report: ProductReport, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO product_reports (product_id, reporter_id, reason, note, reported_at, counted)
            VALUES (\(productId), \(reporter), \(report.reason.rawValue), \(report.note), \(report.reportedAt), \(report.counted))
            ON CONFLICT (product_id, reporter_id) WHERE reporter_id IS NOT NULL DO NOTHING
            """, logger: logger)
    }

    /// How many counted reports the product has.
    func countedReports(of productId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var count = 0
        for try await value in try await connection.query(
            "SELECT count(*) FROM product_reports WHERE product_id = \(productId) AND counted", logger: logger
        ).decode(Int.self) { count = value }
        return count
    }

    /// `reporter`'s report of the product, if they sent one.
    func report(of productId: UUID, by reporter: UUID, on connection: PostgresConnection, logger: Logger) async throws -> ProductReport? {
        try await reports(
            connection.query(
                """
                SELECT reason, note, reported_at, counted FROM product_reports WHERE product_id = \(productId) AND reporter_id = \(reporter)
                """, logger: logger)
        ).first
    }

    /// How many reports `reporter` sent since `since`, and when the first of them was sent.
    func reports(by reporter: UUID, since: Date, on connection: PostgresConnection, logger: Logger) async throws -> (count: Int, first: Date?) {
        var found: (count: Int, first: Date?) = (0, nil)
        let rows = try await connection.query(
            "SELECT count(*), min(reported_at) FROM product_reports WHERE reporter_id = \(reporter) AND reported_at > \(since)", logger: logger)
        for try await (count, first) in rows.decode((Int, Date?).self) { found = (count, first) }
        return found
    }

    /// The reports of a product, oldest first.
    func reports(of productId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [ProductReport] {
        try await reports(
            connection.query(
                """
                SELECT reason, note, reported_at, counted FROM product_reports WHERE product_id = \(productId)
                ORDER BY reported_at, reporter_id
                """, logger: logger))
    }

    private func reports(_ rows: PostgresRowSequence) async throws -> [ProductReport] {
        var reports: [ProductReport] = []
        for try await (reason, note, reportedAt, counted) in rows.decode((String, String?, Date, Bool).self) {
            reports.append(
                ProductReport(reason: ProductReport.Reason(rawValue: reason) ?? .other, note: note, reportedAt: reportedAt, counted: counted))
        }
        return reports
    }

    func deleteReports(of productId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM product_reports WHERE product_id = \(productId)", logger: logger)
    }

    /// Drops `reporter` from every report they sent (the reports still count).
    func forgetReporter(_ reporter: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE product_reports SET reporter_id = NULL WHERE reporter_id = \(reporter)", logger: logger)
    }

    // MARK: Uses in meals

    /// Makes `productIds` the products the consumed meal `mealId` names (none: it names none, or is no longer consumed).
    func setUses(of mealId: UUID, userId: UUID, productIds: Set<UUID>, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM product_uses WHERE meal_id = \(mealId) AND NOT (product_id = ANY(\(Array(productIds))))", logger: logger)
        guard !productIds.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO product_uses (product_id, meal_id, user_id)
            SELECT product_id, \(mealId), \(userId) FROM unnest(\(Array(productIds))::uuid[]) AS uses(product_id)
            ON CONFLICT (product_id, meal_id) DO NOTHING
            """, logger: logger)
    }

    func forgetUses(ofUser userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM product_uses WHERE user_id = \(userId)", logger: logger)
    }

    // MARK: Open Food Facts' misses

    func recentMiss(of gtin: GTIN, since: Date, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await !connection.query(
            "SELECT 1 FROM barcode_misses WHERE gtin = \(gtin.digits) AND checked_at >= \(since)", logger: logger
        ).collect().isEmpty
    }

    func rememberMiss(of gtin: GTIN, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO barcode_misses (gtin, checked_at) VALUES (\(gtin.digits), \(now))
            ON CONFLICT (gtin) DO UPDATE SET checked_at = EXCLUDED.checked_at
            """, logger: logger)
    }

    // MARK: Rows

    /// SQL that is true when the product details (JSON) at `column` give energy and the three macronutrients
    /// (`ProductNutrients.isComplete`).
    static func completeDetails(_ column: String) -> String {
        ["calories", "protein", "carbs", "fat"].map { "jsonb_typeof(\(column)->'per100'->'\($0)') = 'number'" }.joined(separator: " AND ")
    }

    private func products(_ rows: PostgresRowSequence) async throws -> [Product] {
        var products: [Product] = []
        for try await row in rows.decode(Row.self) { products.append(try Self.product(from: row)) }
        return products
    }

    /// The product of a row of `columns`.
    static func product(from row: PostgresRow) throws -> Product {
        try product(from: try row.decode(Row.self))
    }

    private static func product(from row: Row) throws -> Product {
        let (id, gtin, source, author, details, version, status, createdAt, updatedAt, fetchedAt) = row
        guard let barcode = GTIN(gtin), let source = Product.Source(rawValue: source), let status = Product.Status(rawValue: status) else {
            throw ProductRowUnreadable(id: id)
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

/// A stored product with a barcode, source or status this version cannot read: never a client's doing.
struct ProductRowUnreadable: Error, CustomStringConvertible {
    var id: UUID
    var description: String { "product \(id.lowercasedString) has a stored value this version cannot read" }
}
