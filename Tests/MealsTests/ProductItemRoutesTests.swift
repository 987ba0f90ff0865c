import Foundation
import HTTPTypes
import Testing

@testable import MealsService

/// Packaged products in meals at the router: logged by servings or grams from meals' copy of the foods service's
/// products, scored from their labels, written back as product items, and refused when meals does not know them.
@Suite("Product items in meal routes")
struct ProductItemRoutesTests {
    let harness = MealsRouterHarness()

    @Test("a product logged by servings is 201 with the label's values, its product id and source, and its event names the product")
    func logged() async throws {
        try await harness.withRoutes { client in
            let created = try await client.call(
                .post, "/api/meals", json: #"{"items":[{"productId":"\#(TestProducts.yoghurtId)","servings":2},{"foodId":"09040","grams":100}]}"#)
            #expect(created.status == .created, "\(created.text)")
            let items = created.list("items")
            #expect(items.first?["productId"] as? String == TestProducts.yoghurtId.uuidString.lowercased())
            #expect(items.first?["source"] as? String == "product" && items.first?["grams"] as? Double == 300)
            #expect(items.first?["calories"] as? Double == 180 && items.last?["source"] as? String == "database")
            let totals = try #require(created.json["totals"] as? [String: Any])
            #expect((totals["calories"] as? NSNumber)?.doubleValue == 269.0, "180 kcal of yoghurt and 89 of banana")
            let published = try #require(harness.store.allMeals.first?.snapshot.items.first, "the meal.consumed event's first item")
            #expect(published.productId == TestProducts.yoghurtId && published.source == "product")
        }
    }

    @Test("an unknown product is 422 naming the item; a custom meal of a product keeps it and logs it")
    func refusedAndCustom() async throws {
        try await harness.withRoutes { client in
            let unknown = try await client.call(.post, "/api/meals", json: #"{"items":[{"productId":"\#(UUID())","servings":1}]}"#)
            #expect(unknown.status == .unprocessableContent && unknown.details["items[0].productId"] != nil, "\(unknown.text)")
            let custom = try await client.call(
                .post, "/api/custom-meals", json: #"{"name":"Usual can","items":[{"productId":"\#(TestProducts.drinkId)"}]}"#)
            #expect(custom.status == .created, "\(custom.text)")
            #expect((custom.json["totals"] as? [String: Any])?["calories"] as? Double == 139, "a 330 ml can at 42 kcal per 100 ml, rounded")
            let logged = try await client.call(.post, "/api/custom-meals/\(custom.id)/log")
            #expect(logged.status == .created && logged.list("items").first?["unit"] as? String == "serving", "\(logged.text)")
        }
    }
}
