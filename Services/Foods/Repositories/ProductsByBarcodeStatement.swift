import FoodData
import Foundation
import PostgresNIO

/// The products stored under any of a code's GTIN readings: the one query of a barcode look-up of a stored product,
/// the hottest read of the service, prepared once per connection (PostgreSQL then skips its parse and plan).
struct ProductsByBarcodeStatement: PostgresPreparedStatement {
    static let sql = "SELECT \(ProductRepository.columns) FROM products WHERE gtin = ANY($1)"
    typealias Row = Product

    let gtins: [GTIN]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(gtins.map(\.digits))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Product {
        try ProductRepository.product(from: row)
    }
}
