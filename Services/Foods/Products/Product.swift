import EventContracts
import FoodData
import Foundation
import WireJSON

/// A packaged product the foods service keeps: one per barcode, from a user (`community`) or fetched from Open Food
/// Facts, with its current details and version.
struct Product: Sendable, Equatable {
    enum Source: String, Codable, Sendable {
        case community
        case openFoodFacts = "openfoodfacts"
    }

    /// Whether others are offered the product. Reports from enough established accounts hold a user's product back
    /// until an operator reinstates or removes it; its author, and whoever logged it before, still see it meanwhile.
    enum Status: String, Codable, Sendable {
        case offered, held, removed
    }

    var id: UUID
    var gtin: GTIN
    var source: Source
    /// Who added it; nil for Open Food Facts products and once the author deleted their account.
    var authorId: UUID?
    var details: ProductDetails
    var version: Int
    var status: Status
    var createdAt: Date
    var updatedAt: Date
    /// When Open Food Facts last gave it.
    var fetchedAt: Date?

    /// Whether `caller` may see it without asking who logged it: offered ones by everyone, held ones by their author,
    /// removed ones by nobody. (`ProductStore.isVisible` also lets those who logged a held one see it.)
    func isVisible(to caller: UUID) -> Bool {
        switch status {
        case .offered: true
        case .held: authorId == caller
        case .removed: false
        }
    }

    /// The `food.product_changed` event of this version.
    var changedEvent: FoodProductChanged {
        FoodProductChanged(
            productId: id, version: version, barcode: gtin.digits, name: details.name, brand: details.brand, source: source.rawValue,
            basis: details.basis.rawValue, per100: details.per100.event,
            servingSize: details.servingSize.map { FoodProductChanged.ServingSize(amount: $0.amount, unit: $0.unit) },
            allergens: details.allergens.map(\.rawValue), vegan: details.vegan, vegetarian: details.vegetarian,
            novaGroup: details.novaGroup, nutriScore: details.nutriScore, offered: status == .offered, authorId: authorId,
            changedAt: updatedAt)
    }

    /// The event envelope of this version, keyed by the product id.
    var changedEnvelope: EventEnvelope<FoodProductChanged> {
        EventEnvelope(source: "foods", subject: id.lowercasedString, data: changedEvent, time: updatedAt)
    }
}
