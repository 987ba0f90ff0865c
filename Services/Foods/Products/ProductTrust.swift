import Foundation

/// How far a product can be trusted, as its answers say: how many established accounts other than its author logged
/// it (`confirmations`), and for a user's product, the Open Food Facts product of the same barcode and whether the two
/// disagree (`differsFromOpenFoodFacts`). The same for every caller.
struct ProductTrust: Sendable, Equatable {
    var confirmations: Int
    var openFoodFactsProductId: UUID?
    /// Nil when Open Food Facts has no product of this barcode (or this is Open Food Facts' own).
    var differsFromOpenFoodFacts: Bool?

    /// A product nobody confirmed yet, with no Open Food Facts product beside it.
    static let unconfirmed = ProductTrust(confirmations: 0)

    init(confirmations: Int, openFoodFactsProductId: UUID? = nil, differsFromOpenFoodFacts: Bool? = nil) {
        self.confirmations = confirmations
        self.openFoodFactsProductId = openFoodFactsProductId
        self.differsFromOpenFoodFacts = differsFromOpenFoodFacts
    }

    /// The trust of `product` confirmed by `confirmations` accounts, beside `openFoodFacts`, the product Open Food Facts
    /// gave for the same barcode (any status but removed; nil when it has none).
    init(of product: Product, confirmations: Int, openFoodFacts: Product?) {
        self.confirmations = confirmations
        guard product.source == .community, let openFoodFacts, openFoodFacts.status != .removed else { return }
        openFoodFactsProductId = openFoodFacts.id
        differsFromOpenFoodFacts = Self.differ(product.details, openFoodFacts.details)
    }

    /// Whether two labels of one barcode disagree: another basis, or energy, a macronutrient or sugars apart by more
    /// than rounding and a recipe's drift (10 %, at least 10 kcal or 1 g). A value one of them lacks is not compared.
    static func differ(_ lhs: ProductDetails, _ rhs: ProductDetails) -> Bool {
        guard lhs.basis == rhs.basis else { return true }
        let (left, right) = (lhs.per100, rhs.per100)
        let pairs: [(Double?, Double?, Double)] = [
            (left.calories, right.calories, 10), (left.protein, right.protein, 1), (left.carbs, right.carbs, 1), (left.fat, right.fat, 1),
            (left.sugars, right.sugars, 1),
        ]
        return pairs.contains { lhs, rhs, least in
            guard let lhs, let rhs else { return false }
            return abs(lhs - rhs) > max(least, 0.1 * max(lhs, rhs))
        }
    }
}
