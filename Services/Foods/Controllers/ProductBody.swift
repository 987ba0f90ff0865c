import FoodData
import Foundation
import Hummingbird
import ServiceDefaults
import WireJSON

/// A product as answered: its details with the nutrients per 100 g (`per100g`) or per 100 ml (`per100ml`), the ones
/// not known as `null` and listed in `missingNutrients`, one serving's when its size is known, how far it can be
/// trusted (`ProductTrust`), and Open Food Facts' attribution (ODbL) on every product that came from there.
struct ProductBody: ResponseEncodable {
    var product: Product
    var trust: ProductTrust
    /// Whether the caller added it; nil leaves the field out (`fields(of:trust:)`).
    var mine: Bool?

    init(_ product: Product, trust: ProductTrust, caller: UUID) {
        self.product = product
        self.trust = trust
        mine = product.authorId == caller
    }

    private init(_ product: Product, trust: ProductTrust, mine: Bool?) {
        self.product = product
        self.trust = trust
        self.mine = mine
    }

    /// The answer's JSON for everyone but `mine`, from its first key on (without the opening brace), as
    /// `BarcodeAnswerCache` keeps it.
    static func fields(of product: Product, trust: ProductTrust) throws -> ByteBuffer {
        let json = try encoder.encode(ProductBody(product, trust: trust, mine: nil))
        return ByteBuffer(bytes: json.dropFirst())
    }

    /// The 200 answer of kept `fields` with `mine` written first.
    static func response(fields: ByteBuffer, mine: Bool) -> Response {
        var body = ByteBuffer()
        body.reserveCapacity(fields.readableBytes + 16)
        body.writeString(mine ? #"{"mine":true"# : #"{"mine":false"#)
        // A body without fields is `}` alone; any other starts with a key, so it follows a comma.
        if fields.readableBytes > 1 { body.writeString(",") }
        body.writeImmutableBuffer(fields)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes)],
            body: .init(byteBuffer: body))
    }

    /// The encoder of every answer (`AppRequestContext.responseEncoder`).
    private static let encoder = WireJSONEncoder.iso8601()

    private enum CodingKeys: String, CodingKey {
        case id, kind, barcode, name, brand, source, basis, per100g, per100ml, missingNutrients, complete, servingSize, perServing
        case allergens, vegan, vegetarian, novaGroup, nutriScore, version, mine, status, createdAt, updatedAt, fetchedAt, attribution
        case confirmations, openFoodFactsProductId, differsFromOpenFoodFacts
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let details = product.details
        try container.encode(product.id, forKey: .id)
        try container.encode("product", forKey: .kind)
        try container.encode(product.gtin.digits, forKey: .barcode)
        try container.encode(details.name, forKey: .name)
        try container.encode(details.brand, forKey: .brand)
        try container.encode(product.source.rawValue, forKey: .source)
        try container.encode(details.basis.rawValue, forKey: .basis)
        try container.encode(details.per100, forKey: details.basis == .per100g ? .per100g : .per100ml)
        try container.encode(details.per100.missing, forKey: .missingNutrients)
        try container.encode(details.per100.isComplete, forKey: .complete)
        try container.encode(details.servingSize, forKey: .servingSize)
        try container.encode(details.perServing, forKey: .perServing)
        try container.encode(details.allergens.map(\.rawValue), forKey: .allergens)
        try container.encode(details.vegan, forKey: .vegan)
        try container.encode(details.vegetarian, forKey: .vegetarian)
        try container.encode(details.novaGroup, forKey: .novaGroup)
        try container.encode(details.nutriScore, forKey: .nutriScore)
        try container.encode(product.version, forKey: .version)
        try container.encodeIfPresent(mine, forKey: .mine)
        try container.encode(product.status.rawValue, forKey: .status)
        try container.encode(trust.confirmations, forKey: .confirmations)
        try container.encode(trust.openFoodFactsProductId, forKey: .openFoodFactsProductId)
        try container.encode(trust.differsFromOpenFoodFacts, forKey: .differsFromOpenFoodFacts)
        try container.encode(product.createdAt, forKey: .createdAt)
        try container.encode(product.updatedAt, forKey: .updatedAt)
        try container.encode(product.fetchedAt, forKey: .fetchedAt)
        try container.encode(product.source == .openFoodFacts ? Attribution(gtin: product.gtin) : nil, forKey: .attribution)
    }
}

/// What an answer carrying Open Food Facts data must say: OFF's data is under the Open Database License, which asks
/// for attribution wherever it is used.
struct Attribution: Encodable, Sendable, Equatable {
    var text = "Data from Open Food Facts (https://world.openfoodfacts.org), under the Open Database License (ODbL) 1.0"
    var license = "ODbL-1.0"
    var licenseUrl = "https://opendatacommons.org/licenses/odbl/1-0/"
    var sourceUrl: String

    init(gtin: GTIN) {
        sourceUrl = "https://world.openfoodfacts.org/product/\(gtin.openFoodFactsCode)"
    }
}

/// `GET /api/foods/products?mine=true`.
struct ProductListBody: ResponseEncodable {
    var products: [ProductBody]
}

/// `GET /api/foods/products/{id}/versions`: every version, newest first, with what it said.
struct ProductVersionsBody: ResponseEncodable {
    struct Version: Encodable {
        var version: Int
        var editedAt: Date
        var product: VersionDetails
    }

    /// One version's details in the request's shape.
    struct VersionDetails: Encodable {
        var details: ProductDetails
        var barcode: String

        private enum CodingKeys: String, CodingKey {
            case barcode, name, brand, servingSize, per100g, per100ml, allergens, vegan, vegetarian, novaGroup, nutriScore
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(barcode, forKey: .barcode)
            try container.encode(details.name, forKey: .name)
            try container.encode(details.brand, forKey: .brand)
            try container.encode(details.servingSize, forKey: .servingSize)
            try container.encode(details.per100, forKey: details.basis == .per100g ? .per100g : .per100ml)
            try container.encode(details.allergens.map(\.rawValue), forKey: .allergens)
            try container.encode(details.vegan, forKey: .vegan)
            try container.encode(details.vegetarian, forKey: .vegetarian)
            try container.encode(details.novaGroup, forKey: .novaGroup)
            try container.encode(details.nutriScore, forKey: .nutriScore)
        }
    }

    var productId: UUID
    var versions: [Version]
}

/// `POST /api/foods/products/{id}/reports`.
struct ReportBody: ResponseEncodable {
    var productId: UUID
    /// Established accounts whose reports of the product count (a user's second report is not counted again).
    var reports: Int
    /// Whether this report counts towards holding the product (an established account's, on a user's product).
    var counted: Bool
    /// Whether it is no longer offered to others until an operator looks.
    var held: Bool
}
