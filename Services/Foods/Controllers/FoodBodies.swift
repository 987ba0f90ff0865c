import FoodData
import Foundation
import Hummingbird
import ServiceDefaults

/// One search result: a USDA food (`kind` `generic`, per 100 g with household measures) or a product (`kind`
/// `product`, per 100 g or 100 ml, with its brand, barcode, serving and `confirmations`, and OFF's attribution when it
/// came from there).
struct FoodSearchResultBody: Encodable, Sendable {
    /// The values per 100 of the result's kind: a USDA food's profile, or a product's label with unknowns as `null`.
    enum Values: Sendable {
        case generic(NutrientProfile)
        case product(ProductNutrients, basis: ProductDetails.Basis)
    }

    var id: String
    var kind: String
    var name: String
    var brand: String?
    var group: String?
    var source: String
    var relevance: Double
    var values: Values
    var measures: [HouseholdMeasure]?
    var barcode: String?
    var servingSize: ProductDetails.ServingSize?
    var confirmations: Int?
    var attribution: Attribution?

    private enum CodingKeys: String, CodingKey {
        case id, kind, name, brand, group, source, relevance, basis, per100g, per100ml, measures, barcode, servingSize, confirmations
        case attribution
    }

    init(generic food: FoodRecord, relevance: Double) {
        id = food.id
        kind = "generic"
        name = food.name
        group = food.group.displayName
        source = "usda"
        self.relevance = relevance
        values = .generic(food.per100g)
        measures = food.measures
    }

    init(product: Product, confirmations: Int, relevance: Double) {
        id = product.id.lowercasedString
        kind = "product"
        name = product.details.name
        brand = product.details.brand
        source = product.source.rawValue
        self.relevance = relevance
        values = .product(product.details.per100, basis: product.details.basis)
        barcode = product.gtin.digits
        servingSize = product.details.servingSize
        self.confirmations = confirmations
        attribution = product.source == .openFoodFacts ? Attribution(gtin: product.gtin) : nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(brand, forKey: .brand)
        try container.encodeIfPresent(group, forKey: .group)
        try container.encode(source, forKey: .source)
        try container.encode(relevance, forKey: .relevance)
        switch values {
        case .generic(let profile):
            try container.encode(ProductDetails.Basis.per100g.rawValue, forKey: .basis)
            try container.encode(profile, forKey: .per100g)
        case .product(let nutrients, let basis):
            try container.encode(basis.rawValue, forKey: .basis)
            try container.encode(nutrients, forKey: basis == .per100g ? .per100g : .per100ml)
        }
        try container.encodeIfPresent(measures, forKey: .measures)
        try container.encodeIfPresent(barcode, forKey: .barcode)
        try container.encodeIfPresent(servingSize, forKey: .servingSize)
        try container.encodeIfPresent(confirmations, forKey: .confirmations)
        try container.encodeIfPresent(attribution, forKey: .attribution)
    }
}

/// Search results, best first.
struct FoodSearchBody: ResponseEncodable {
    var query: String
    var results: [FoodSearchResultBody]
}

/// One USDA food with every nutrient of the table.
struct GenericFoodBody: ResponseEncodable {
    var id: String
    var kind = "generic"
    var source = "usda"
    var name: String
    var group: String
    var traits: FoodTraits
    var per100g: NutrientProfile
    /// Every nutrient the table has for this food, per 100 g, by its USDA name (units as in SR24: g, mg, µg, IU).
    var nutrients: [String: Double]
    var measures: [HouseholdMeasure]
}
