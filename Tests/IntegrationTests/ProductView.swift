import FoodData
import Foundation

@testable import FoodsService

/// A product as both stores can agree on it: everything but the id each made.
struct ProductView: Equatable, CustomStringConvertible {
    var gtin: String
    var source: Product.Source
    var authorId: UUID?
    var details: ProductDetails
    var version: Int
    var status: Product.Status
    var createdAt: Date
    var updatedAt: Date
    var fetchedAt: Date?

    init(_ product: Product) {
        gtin = product.gtin.digits
        source = product.source
        authorId = product.authorId
        details = product.details
        version = product.version
        status = product.status
        createdAt = product.createdAt
        updatedAt = product.updatedAt
        fetchedAt = product.fetchedAt
    }

    init?(_ product: Product?) {
        guard let product else { return nil }
        self.init(product)
    }

    var description: String { "\(details.name) \(gtin) \(source.rawValue) v\(version) \(status.rawValue)" }
}
