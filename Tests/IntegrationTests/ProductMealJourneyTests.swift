import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import MealsService
@testable import TrendsService

/// A packaged product from the foods service logged into a meal, end to end through the gateway against every real
/// service: meals learns the product from `food.product_changed` (never calling foods), scores it from its label,
/// trends shows it in the day, and the export carries the product and the item that names it.
@Suite("A product in a meal, through every service", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct ProductMealJourneyTests {
    static let skyr = #"""
        {"barcode":"4006381333931","name":"Skyr natur","brand":"Nordhof","servingSize":{"amount":150,"unit":"g"},
         "per100g":{"calories":63,"protein":11,"carbs":4,"fat":0.2,"sugars":4,"salt":0.1},"allergens":["milk"],"vegetarian":true,
         "novaGroup":1,"nutriScore":"a"}
        """#

    @Test("a user adds a product, logs two servings, and sees them in the day's totals and scores, and in the export")
    func productLoggedIntoMeal() async throws {
        try await FullStack.run(start: JourneyTests.start) { stack in
            let user = try await stack.signUp("Scanner")
            let added = try await stack.expect(.created, .post, "/api/foods/products", json: Self.skyr, token: user.token)
            let productId = try #require(added.object["id"] as? String)
            let scanned = try await stack.expect(.ok, .get, "/api/foods/barcode/4006381333931", token: user.token)
            #expect(scanned.object["id"] as? String == productId)

            // Meals learns of the product from its event, a moment after it was added.
            let entry = #"{"title":"Breakfast","items":[{"productId":"\#(productId)","servings":2}]}"#
            var logged: TestResponse?
            let known = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                let answer = try await stack.gateway.call(.post, "/api/meals", json: entry, token: user.token)
                if answer.status == .created { logged = answer }
                return answer.status == .created
            }
            #expect(known, "meals did not learn of the product")
            let meal = try #require(try logged?.decoded(MealAnswer.self))
            #expect(meal.items.first?.source == "product" && meal.items.first?.grams == 300 && meal.items.first?.calories == 189)
            #expect(meal.totals.calories == 189 && meal.totals.protein == 33)

            let day = try await stack.gateway.eventually("/api/history/2026-03-10", token: user.token, as: DayHistory.self) {
                $0.meals.count == 1
            }
            #expect(day.summary.calories == 189)
            #expect(day.meals.first?.items.first?.productId?.uuidString.lowercased() == productId)
            #expect(day.meals.first?.items.first?.source == "product" && day.meals.first?.healthScore != nil)

            // Meals knows who logged the product, so a hold after reports leaves it loggable for them (the SQL of it).
            let mealsDatabase = try #require(stack.databases["meals"])
            let product = try #require(UUID(uuidString: productId))
            let named = try await ProductCopyRepository().namedInMeals(
                [product, UUID()], of: user.id, client: mealsDatabase, logger: TestEnvironment.logger)
            #expect(named == [product])
            #expect(
                try await ProductCopyRepository().namedInMeals([product], of: UUID(), client: mealsDatabase, logger: TestEnvironment.logger).isEmpty)

            // Search ranks by how often a product was logged (foods counts consumed meals from their events): the logged
            // skyr comes before an equally similar one that sorts first by name.
            let other = try await stack.signUp("Other")
            let apricot = Self.skyr.replacingOccurrences(of: "4006381333931", with: "96385074").replacingOccurrences(
                of: "Skyr natur", with: "Skyr apricot")
            try await stack.expect(.created, .post, "/api/foods/products", json: apricot, token: other.token)
            let ranked = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                let search = try await stack.gateway.call(.get, "/api/foods/search?q=skyr&limit=5", token: user.token)
                let results = search.object["results"] as? [[String: Any]] ?? []
                let products = results.filter { $0["kind"] as? String == "product" }
                return products.compactMap { $0["name"] as? String }.prefix(2) == ["Skyr natur", "Skyr apricot"]
            }
            #expect(ranked, "the logged product is not ranked first")

            let export = try await stack.expect(.ok, .get, "/api/export", token: user.token)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: export.body)) as? [String: Any])
            let products = (document["foods"] as? [String: Any])?["products"] as? [[String: Any]] ?? []
            #expect(products.map { $0["id"] as? String } == [productId], "the foods part holds the user's product")
            let meals = (document["meals"] as? [String: Any])?["meals"] as? [[String: Any]] ?? []
            let items = meals.first?["items"] as? [[String: Any]] ?? []
            #expect(items.first?["productId"] as? String == productId, "the exported meal item names the product")
        }
    }

    /// A European muesli label as the model copies it: per 100 g with kJ and kcal and salt, a 45 g serving.
    static let muesliLabel = #"""
        {"is_nutrition_label":true,"product_name":"Crunchy muesli","brand":"Nordhof","basis":"g","serving_size":45,
         "serving_unit":"g","per_100":{"energy_kcal":412,"energy_kj":1725,"protein_g":9.5,"carbs_g":62,"sugars_g":18,"fat_g":13,
         "saturated_fat_g":2.1,"fiber_g":7.4,"sodium_mg":null,"salt_g":0.25},"per_serving":{"energy_kcal":null,"energy_kj":null,
         "protein_g":null,"carbs_g":null,"sugars_g":null,"fat_g":null,"saturated_fat_g":null,"fiber_g":null,"sodium_mg":null,
         "salt_g":null},"confidence":0.92}
        """#

    @Test("a user scans an unknown barcode, photographs the label, confirms the draft, and the barcode then finds the product")
    func labelPhotoBecomesProduct() async throws {
        try await FullStack.run(start: JourneyTests.start) { stack in
            let user = try await stack.signUp("Labeller")
            try await stack.expect(.notFound, .get, "/api/foods/barcode/5901234123457", token: user.token)
            stack.vision.script(Self.muesliLabel)
            let image = Data(PhotoUpload.png).base64EncodedString()
            let read = try await stack.expect(
                .ok, .post, "/api/analyze", json: #"{"kind":"label","barcode":"5901234123457","image":"\#(image)"}"#, token: user.token)
            #expect(read.object["kind"] as? String == "label" && read.object["conversions"] as? [String] == ["sodium_from_salt"])
            let draft = try #require(read.object["product"] as? [String: Any])
            #expect(draft["barcode"] as? String == "05901234123457" && draft["name"] as? String == "Crunchy muesli")

            // The client shows the draft and sends it on as it stands: the products route takes it.
            let body = String(decoding: try JSONSerialization.data(withJSONObject: draft), as: UTF8.self)
            let added = try await stack.expect(.created, .post, "/api/foods/products", json: body, token: user.token)
            let scanned = try await stack.expect(.ok, .get, "/api/foods/barcode/5901234123457", token: user.token)
            #expect(scanned.object["id"] as? String == added.object["id"] as? String)
            let per100g = scanned.object["per100g"] as? [String: Any]
            #expect((per100g?["calories"] as? NSNumber)?.doubleValue == 412 && (per100g?["sodium"] as? NSNumber)?.doubleValue == 100)
            let meals = try await stack.expect(.ok, .get, "/api/meals", token: user.token)
            #expect((meals.object["meals"] as? [Any])?.isEmpty == true, "reading a label logs no meal")
        }
    }
}
