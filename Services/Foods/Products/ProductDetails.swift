import FoodData

/// What a product is, as its author or Open Food Facts gives it: what a version of a product records, what
/// `POST /api/foods/products` and `PUT` carry (after `ProductDraftReader` checked it) and what an edit replaces.
struct ProductDetails: Codable, Sendable, Equatable {
    /// What the nutrients are per: 100 g of a food or 100 ml of a drink.
    enum Basis: String, Codable, Sendable {
        case per100g = "100g"
        case per100ml = "100ml"

        /// The unit of a serving on this basis.
        var unit: String { self == .per100g ? "g" : "ml" }
    }

    /// One serving as the label states it.
    struct ServingSize: Codable, Sendable, Equatable {
        var amount: Double
        var unit: String
    }

    var name: String
    var brand: String?
    var basis: Basis
    var per100: ProductNutrients
    var servingSize: ServingSize?
    var allergens: [Allergen]
    var vegan: Bool?
    var vegetarian: Bool?
    /// NOVA group 1-4.
    var novaGroup: Int?
    /// Nutri-Score grade `a`-`e`.
    var nutriScore: String?

    /// The nutrients of one serving, when the serving's size is known.
    var perServing: ProductNutrients? { servingSize.map { per100.scaled(by: $0.amount / 100) } }
}
