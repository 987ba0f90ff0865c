import FoodData
import Foundation
import Logging

/// What the product routes read and write: products by id, barcode and author, their versions, their reports, the
/// barcodes Open Food Facts lacked, and the search over names and brands. Every change of a product commits with its
/// `food.product_changed` event. `PostgresProductStore` in the service; router tests use an in-memory one. Every call
/// logs to the request's `logger`.
protocol ProductStore: Sendable {
    func product(id: UUID, logger: Logger) async throws -> Product?

    /// The product stored under the first of `gtins` that has one, whatever its status.
    func product(gtins: [GTIN], logger: Logger) async throws -> Product?

    /// Stores a new product, or answers the one already stored under its barcode (by anyone, in any status: one
    /// product per barcode). Two users adding one barcode at once: one is created, the other told of it.
    func create(_ details: ProductDetails, gtin: GTIN, author: UUID, now: Date, logger: Logger) async throws -> ProductCreation

    /// Stores what Open Food Facts answered for `gtin` (new, or the refresh of a product fetched before), unless a
    /// user's product holds the barcode by now, which is answered instead.
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

    /// Records `reporter`'s report of a product (once per user: a second report changes nothing) and holds the
    /// product back from others once `holdAt` distinct users reported it.
    func report(
        productId: UUID, reporter: UUID, reason: ProductReport.Reason, note: String?, holdAt: Int, now: Date, logger: Logger
    ) async throws -> ReportOutcome

    /// Products held back after reports, oldest hold first, with their reports.
    func heldProducts(limit: Int, logger: Logger) async throws -> [(product: Product, reports: [ProductReport])]

    /// An operator's decision on a product: offered again, or removed for good. Nil when there is no such product.
    func review(id: UUID, decision: ReviewDecision, now: Date, logger: Logger) async throws -> Product?

    /// Products whose name or brand is like `query` (typo-tolerant), best first with a relevance 0...1, that `caller`
    /// may see.
    func search(_ query: String, caller: UUID, limit: Int, logger: Logger) async throws -> [(product: Product, relevance: Double)]

    /// When Open Food Facts last said it has no product for `gtin`, if it said so since `since`.
    func recentMiss(of gtin: GTIN, since: Date, logger: Logger) async throws -> Bool

    /// Remembers that Open Food Facts has no product for `gtin`, at `now`.
    func rememberMiss(of gtin: GTIN, now: Date, logger: Logger) async throws
}

/// What adding a product came to.
enum ProductCreation: Sendable, Equatable {
    case created(Product)
    /// The barcode is taken by this product.
    case duplicate(Product)
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
    /// The report counted (or was this user's already): how many users reported the product, and whether it is held.
    case recorded(reports: Int, held: Bool)
    case notFound
    /// Authors fix their own products instead.
    case ownProduct
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
}
