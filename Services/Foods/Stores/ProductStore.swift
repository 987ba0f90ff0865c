import FoodData
import Foundation
import Logging

/// What the product routes read and write: products by id, barcode and author, their versions, their reports, the
/// barcodes Open Food Facts lacked, the search over names and brands, and how far products can be trusted (who logged
/// them, from the meal events `FoodsEventHandler` applies). Every change of a product commits with its
/// `food.product_changed` event. `PostgresProductStore` in the service; router tests use an in-memory one. Every call
/// logs to the request's `logger`.
protocol ProductStore: Sendable {
    func product(id: UUID, logger: Logger) async throws -> Product?

    /// The products stored under the first of `gtins` that has any (a user's, Open Food Facts', or both), whatever
    /// their status.
    func products(gtins: [GTIN], logger: Logger) async throws -> BarcodeProducts

    /// Stores a new product of `author`, unless they added `perDay` products in the last 24 hours, or the barcode has a
    /// user's product (by anyone, in any status) or an Open Food Facts one already, which is answered instead. Two
    /// users adding one barcode at once: one is created, the other told of it.
    func create(
        _ details: ProductDetails, gtin: GTIN, author: UUID, perDay: Int, now: Date, logger: Logger
    ) async throws -> ProductCreation

    /// Stores what Open Food Facts answered for `gtin`: new, or the refresh of the product fetched before (its version
    /// grows only when the details changed). A user's product of the same barcode stays beside it.
    func storeFetched(_ details: ProductDetails, gtin: GTIN, now: Date, logger: Logger) async throws -> Product

    /// Replaces the details of the author's product with `details` as its next version; `expectedVersion`, when
    /// given, must be the stored one.
    func edit(
        id: UUID, editor: UUID, details: ProductDetails, expectedVersion: Int?, now: Date, logger: Logger
    ) async throws -> ProductEdit

    /// Every version of a product, newest first.
    func versions(of id: UUID, logger: Logger) async throws -> [ProductVersion]

    /// The products `author` added (any status but removed), newest first, at most `limit`.
    func products(authoredBy author: UUID, limit: Int, logger: Logger) async throws -> [Product]

    /// Records `reporter`'s report of a product they may see (once per user: a second report changes nothing), unless
    /// they sent `rules.reportsPerDay` reports in the last 24 hours. It counts when the reporter is an established
    /// account and the product a user's; a user's product that `rules.reportsToHold` counted reports name is held back
    /// from others. An Open Food Facts product is never held: its reports are kept for the operator.
    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, rules: CommunityRules, now: Date, logger: Logger
    ) async throws -> ReportOutcome

    /// Products held back after reports, oldest hold first, with their reports.
    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])]

    /// Products with reports that are not held (Open Food Facts' ones, users' ones with too few counted reports), the
    /// most recently reported first, with their reports.
    func reportedProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])]

    /// An operator's decision on a product: offered again, or removed for good. Nil when there is no such product.
    func review(id: UUID, decision: ReviewDecision, now: Date, logger: Logger) async throws -> Product?

    /// Products whose name or brand is like `query` (typo-tolerant), best first with a relevance 0...1, that `caller`
    /// may see; a user's product whose barcode has a complete Open Food Facts product is left out (that one is found).
    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)]

    /// Whether a consumed meal of `userId` names the product.
    func hasLogged(_ productId: UUID, userId: UUID, logger: Logger) async throws -> Bool

    /// The trust of each of `products` (`ProductTrust`), confirmed by the accounts established at `now` under `rule`.
    func trust(of products: [Product], rule: EstablishedAccountRule, now: Date, logger: Logger) async throws -> [UUID: ProductTrust]

    /// What foods knows of the account `userId` from the events it consumed; nil when nothing.
    func knownAccount(_ userId: UUID, logger: Logger) async throws -> KnownAccount?

    /// When Open Food Facts last said it has no product for `gtin`, if it said so since `since`.
    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool

    /// Remembers that Open Food Facts has no product for `gtin`, at `now`.
    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws
}

extension ProductStore {
    /// Whether `caller` may see `product`: an offered one everyone, a held one its author and whoever logged it before
    /// it was held (it stays usable for them), a removed one nobody.
    func isVisible(_ product: Product, to caller: UUID, logger: Logger) async throws -> Bool {
        if product.isVisible(to: caller) { return true }
        guard product.status == .held else { return false }
        return try await hasLogged(product.id, userId: caller, logger: logger)
    }

    /// The trust of one product.
    func trust(of product: Product, rule: EstablishedAccountRule, now: Date, logger: Logger) async throws -> ProductTrust {
        try await trust(of: [product], rule: rule, now: now, logger: logger)[product.id] ?? .unconfirmed
    }
}

/// What adding a product came to.
enum ProductCreation: Sendable, Equatable {
    case created(Product)
    /// The barcode is taken by this product.
    case duplicate(Product)
    /// The author added their products of the day already; the next may be added in this many seconds.
    case limited(retryAfter: TimeInterval)
}

/// What editing a product came to.
enum ProductEdit: Sendable, Equatable {
    case edited(Product)
    case notFound
    case notAuthor
    /// The stored version is not the one the client edited.
    case versionMismatch(current: Int)
}

/// What reporting a product came to.
enum ReportOutcome: Sendable, Equatable {
    /// The report is kept (or was this user's already): how many counted reports the product has, whether this one
    /// counts, and whether the product is held.
    case recorded(reports: Int, counted: Bool, held: Bool)
    case notFound
    /// Authors fix their own products instead.
    case ownProduct
    /// The reporter sent their reports of the day already; the next may be sent in this many seconds.
    case limited(retryAfter: TimeInterval)
}

/// An operator's decision on a held product.
enum ReviewDecision: String, Sendable, Codable {
    case reinstate, remove
}

/// One version of a product.
struct ProductVersion: Sendable, Equatable {
    var version: Int
    var details: ProductDetails
    var editedAt: Date
}

/// One user's report of a wrong or unsuitable product.
struct ProductReport: Sendable, Equatable {
    enum Reason: String, Codable, Sendable, CaseIterable {
        case wrongNutrition = "wrong_nutrition"
        case wrongBarcode = "wrong_barcode"
        case duplicate
        case notFood = "not_food"
        case offensive
        case other
    }

    var reason: Reason
    var note: String?
    var reportedAt: Date
    /// Whether it counts towards holding the product (an established account's report of a user's product).
    var counted = true
}
