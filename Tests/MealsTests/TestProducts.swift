import EventContracts
import Foundation

@testable import MealsService

/// Packaged products as meals would know them from `food.product_changed`, for resolver and router tests.
enum TestProducts {
    static let author = UUID()
    static let yoghurtId = UUID()
    static let heldId = UUID()
    static let incompleteId = UUID()
    static let drinkId = UUID()

    static func product(
        _ id: UUID, name: String, per100: FoodProductChanged.Nutrients, serving: Double?, basis: String = "100g", allergens: [String] = [],
        vegan: Bool? = nil, vegetarian: Bool? = nil, nova: Int? = nil, nutriScore: String? = nil, offered: Bool = true
    ) -> PackagedProduct {
        PackagedProduct(
            event: FoodProductChanged(
                productId: id, version: 1, barcode: "00036000291452", name: name, brand: "Dairy Hill", source: "community", basis: basis,
                per100: per100, servingSize: serving.map { .init(amount: $0, unit: basis == "100ml" ? "ml" : "g") }, allergens: allergens,
                vegan: vegan, vegetarian: vegetarian, novaGroup: nova, nutriScore: nutriScore, offered: offered, authorId: author,
                changedAt: Date(timeIntervalSince1970: 1_795_000_000)))
    }

    /// A Greek yoghurt: 60 kcal, 10 g protein per 100 g, servings of 150 g, milk, vegetarian, NOVA 1, Nutri-Score a.
    static let yoghurt = product(
        yoghurtId, name: "Greek yoghurt",
        per100: .init(calories: 60, protein: 10, carbs: 3.6, fat: 0.4, fiber: 0, sugars: 3.6, saturatedFat: 0.1, sodium: 40), serving: 150,
        allergens: ["milk"], vegan: false, vegetarian: true, nova: 1, nutriScore: "a")
    /// Held back after reports: loggable by its author only.
    static let held = product(
        heldId, name: "Reported bar",
        per100: .init(calories: 400, protein: 5, carbs: 60, fat: 15, fiber: nil, sugars: nil, saturatedFat: nil, sodium: nil),
        serving: 40, offered: false)
    /// Energy and fat only, no serving size: logged by grams, flagged incomplete.
    static let incomplete = product(
        incompleteId, name: "Peanut butter",
        per100: .init(calories: 620, protein: nil, carbs: nil, fat: 50, fiber: nil, sugars: nil, saturatedFat: nil, sodium: nil),
        serving: nil, vegan: true, nova: 4)
    /// A drink per 100 ml, a 330 ml can.
    static let drink = product(
        drinkId, name: "Lemonade", per100: .init(calories: 42, protein: 0, carbs: 10.4, fat: 0, fiber: 0, sugars: 10.4, saturatedFat: 0, sodium: 8),
        serving: 330, basis: "100ml", vegan: true, nova: 4, nutriScore: "e")

    static let all = Dictionary(uniqueKeysWithValues: [yoghurt, held, incomplete, drink].map { ($0.id, $0) })
}
