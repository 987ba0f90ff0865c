import Foundation

/// `food.product_changed`: a packaged product was added, fetched from Open Food Facts, edited, held back after
/// reports, reinstated or removed; always the product's whole current record. Keyed by the product id (a product is
/// everyone's, not one user's), so one product's changes stay ordered; `version` grows with each change, so a
/// consumer keeps the highest it has seen. Meals keeps a copy to resolve the products in meal items.
public struct FoodProductChanged: EventPayload {
    public static let topic = Topic.foodProductChanged
    public static let schemaVersion = 1

    public var productId: UUID
    public var version: Int
    /// GTIN-14: 14 digits, UPC-A, UPC-E, EAN-8 and EAN-13 padded (UPC-E expanded first).
    public var barcode: String
    public var name: String
    public var brand: String?
    /// `community` (added by a user) or `openfoodfacts`.
    public var source: String
    /// `100g` or `100ml`: what `per100` is per.
    public var basis: String
    /// Nutrients per 100 g or 100 ml; a nutrient the label or the source did not give is absent, never guessed.
    public var per100: Nutrients
    public var servingSize: ServingSize?
    /// Allergen ids (`milk`, `gluten`, ...: the EU's 14).
    public var allergens: [String]
    public var vegan: Bool?
    public var vegetarian: Bool?
    /// NOVA processing group, 1 (unprocessed) to 4 (ultra-processed).
    public var novaGroup: Int?
    /// Nutri-Score grade, `a` to `e`.
    public var nutriScore: String?
    /// Whether the product is offered to users other than its author: false while held after reports or once removed.
    public var offered: Bool
    /// The user who added it; absent for Open Food Facts products and once the author deleted their account.
    public var authorId: UUID?
    public var changedAt: Date

    /// Nutrients of 100 g or 100 ml: energy in kcal, sodium in mg, the rest in grams.
    public struct Nutrients: Codable, Sendable, Equatable {
        public var calories: Double?
        public var protein: Double?
        public var carbs: Double?
        public var fat: Double?
        public var fiber: Double?
        public var sugars: Double?
        public var saturatedFat: Double?
        public var sodium: Double?

        public init(
            calories: Double?, protein: Double?, carbs: Double?, fat: Double?, fiber: Double?, sugars: Double?, saturatedFat: Double?,
            sodium: Double?
        ) {
            self.calories = calories
            self.protein = protein
            self.carbs = carbs
            self.fat = fat
            self.fiber = fiber
            self.sugars = sugars
            self.saturatedFat = saturatedFat
            self.sodium = sodium
        }
    }

    /// One serving as the label states it: `amount` of `unit` (`g` or `ml`).
    public struct ServingSize: Codable, Sendable, Equatable {
        public var amount: Double
        public var unit: String

        public init(amount: Double, unit: String) {
            self.amount = amount
            self.unit = unit
        }
    }

    public init(
        productId: UUID, version: Int, barcode: String, name: String, brand: String?, source: String, basis: String, per100: Nutrients,
        servingSize: ServingSize?, allergens: [String], vegan: Bool?, vegetarian: Bool?, novaGroup: Int?, nutriScore: String?,
        offered: Bool, authorId: UUID?, changedAt: Date
    ) {
        self.productId = productId
        self.version = version
        self.barcode = barcode
        self.name = name
        self.brand = brand
        self.source = source
        self.basis = basis
        self.per100 = per100
        self.servingSize = servingSize
        self.allergens = allergens
        self.vegan = vegan
        self.vegetarian = vegetarian
        self.novaGroup = novaGroup
        self.nutriScore = nutriScore
        self.offered = offered
        self.authorId = authorId
        self.changedAt = changedAt
    }
}
