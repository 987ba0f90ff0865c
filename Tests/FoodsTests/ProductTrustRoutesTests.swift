import FoodData
import Foundation
import HTTPTypes
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// Strangers' products trusted as far as they deserve (issue 50 item 9), at the router: each abuse path (poisoning a
/// code, holding a product with fresh accounts, flooding creations or reports) and what stops it; how many others
/// confirmed a product; Open Food Facts' data preferred once it has the code.
@Suite("Trust in users' products at the router")
struct ProductTrustRoutesTests {
    /// Answers are not kept between look-ups here: each look-up shows what the rules decide now.
    let harness: FoodsRouterHarness = {
        var harness = FoodsRouterHarness()
        harness.answers = BarcodeAnswerCache(lifetime: .zero, capacity: 1)
        return harness
    }()

    /// The poisoned "water" of the issue: 880 kcal and 98 g of fat per 100 g.
    static let poisonedWater = #"{"barcode":"4260123450038","name":"Plain water","per100g":{"calories":880,"protein":0,"carbs":0,"fat":98}}"#
    /// What Open Food Facts says the same barcode is.
    static let water = ProductDetails(
        name: "Plain water", brand: "Quellhof", basis: .per100ml,
        per100: ProductNutrients(calories: 0, protein: 0, carbs: 0, fat: 0, fiber: 0, sugars: 0, saturatedFat: 0, sodium: 1),
        servingSize: nil, allergens: [], vegan: true, vegetarian: true, novaGroup: 1, nutriScore: "a")

    @Test(
        "a poisoned code: the label passes (its energy matches its fat), others get it unconfirmed, and Open Food Facts' data replaces it once OFF answers"
    )
    func poisonedCode() async throws {
        let gtin = try #require(GTIN("4260123450038"))
        harness.source.answer(gtin, with: .failure(ProductSourceUnavailable(reason: "down", retryAfter: .seconds(5))))
        let attacker = try harness.freshAccount()
        let victim = try harness.establishedAccount()
        try await harness.withRoutes { client in
            let unknown = try await client.call(.get, "/api/foods/barcode/4260123450038", as: attacker)
            #expect(unknown.status == .notFound && unknown.details["externalLookup"] as? String == "unavailable", "\(unknown.text)")
            let poisoned = try await client.call(.post, "/api/foods/products", json: Self.poisonedWater, as: attacker)
            #expect(poisoned.status == .created, "880 kcal of 98 g fat is a plausible label (an oil's): \(poisoned.text)")

            // Open Food Facts still down: the victim gets the user's product, and sees nobody confirmed it.
            let scanned = try await client.call(.get, "/api/foods/barcode/4260123450038", as: victim)
            #expect(scanned.status == .ok && scanned.id == poisoned.id && scanned.json["source"] as? String == "community", "\(scanned.text)")
            #expect(scanned.json["confirmations"] as? Int == 0 && scanned.json["differsFromOpenFoodFacts"] is NSNull)

            // Fresh accounts logging it confirm nothing.
            for _ in 0..<3 { try harness.log(poisoned.id, by: try harness.freshAccount()) }
            try harness.log(poisoned.id, by: attacker)
            #expect(try await client.call(.get, "/api/foods/\(poisoned.id)", as: victim).json["confirmations"] as? Int == 0)

            // Open Food Facts answers: its product is preferred, and the user's is marked as differing.
            harness.source.answer(gtin, with: .success(.found(Self.water)))
            let preferred = try await client.call(.get, "/api/foods/barcode/4260123450038", as: victim)
            #expect(preferred.status == .ok && preferred.json["source"] as? String == "openfoodfacts", "\(preferred.text)")
            #expect(preferred.object("per100ml")["calories"] as? Double == 0)
            let marked = try await client.call(.get, "/api/foods/\(poisoned.id)", as: victim)
            #expect(marked.json["differsFromOpenFoodFacts"] as? Bool == true && marked.json["openFoodFactsProductId"] as? String == preferred.id)
            let search = try await client.call(.get, "/api/foods/search?q=plain%20water", as: victim)
            let found = search.list("results").filter { $0["kind"] as? String == "product" }.compactMap { $0["id"] as? String }
            #expect(found == [preferred.id], "search finds Open Food Facts' product only: \(search.text)")
            #expect(harness.source.asked == [gtin, gtin, gtin], "asked on the first scan, again while it was down, then answered")
        }
    }

    @Test("labels no food has are refused: over 900 kcal per 100 g, and energy that its macros do not make")
    func implausibleEnergy() async throws {
        try await harness.withRoutes { client in
            for nutrients in [#"{"calories":950,"protein":0,"carbs":0,"fat":100}"#, #"{"calories":880,"protein":0,"carbs":0,"fat":0}"#] {
                let answer = try await client.call(
                    .post, "/api/foods/products", json: #"{"barcode":"4260123450038","name":"Plain water","per100g":\#(nutrients)}"#)
                #expect(answer.status == .unprocessableContent && answer.details["per100g.calories"] != nil, "\(nutrients): \(answer.text)")
            }
        }
    }

    @Test("confirmations count the established accounts other than the author that logged the product, each once")
    func confirmations() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            let (first, second) = (try harness.establishedAccount(), try harness.establishedAccount())
            try harness.log(added.id, by: harness.owner)
            try harness.log(added.id, by: first)
            try harness.log(added.id, by: first)
            try harness.log(added.id, by: second)
            try harness.log(added.id, by: try harness.freshAccount())
            let seen = try await client.call(.get, "/api/foods/barcode/036000291452", as: harness.stranger)
            #expect(seen.json["confirmations"] as? Int == 2, "\(seen.text)")
            let search = try await client.call(.get, "/api/foods/search?q=greek%20yoghurt", as: harness.stranger)
            #expect(search.list("results").first { $0["id"] as? String == added.id }?["confirmations"] as? Int == 2, "\(search.text)")
        }
    }

    @Test("fresh accounts cannot hold a product: their reports are kept for the operator but do not count; established ones do")
    func freshAccountsCannotHold() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            let reports = "/api/foods/products/\(added.id)/reports"
            for _ in 0..<5 {
                let answer = try await client.call(.post, reports, json: #"{"reason":"wrong_nutrition"}"#, as: try harness.freshAccount())
                #expect(
                    answer.status == .accepted && answer.json["counted"] as? Bool == false && answer.json["reports"] as? Int == 0, "\(answer.text)")
            }
            // A day old but without meals is not established either.
            harness.clock.advance(seconds: 4 * 86400)
            let idle = try await client.call(.post, reports, json: #"{"reason":"wrong_nutrition"}"#, as: try harness.freshAccount())
            #expect(idle.json["counted"] as? Bool == false)
            #expect(try await client.call(.get, "/api/foods/barcode/036000291452", as: harness.stranger).status == .ok, "still offered")
            for index in 1...3 {
                let answer = try await client.call(.post, reports, json: #"{"reason":"wrong_nutrition"}"#, as: try harness.establishedAccount())
                #expect(
                    answer.json["counted"] as? Bool == true && answer.json["reports"] as? Int == index && answer.json["held"] as? Bool == (index == 3)
                )
            }
        }
        try await harness.withAdminRoutes { admin in
            let held = try await admin.call(.get, "/admin/foods/held").list("products")
            let kept = held.first?["reports"] as? [[String: Any]] ?? []
            #expect(kept.count == 9 && kept.filter { $0["counted"] as? Bool == true }.count == 3, "every report kept, three counted")
        }
    }

    @Test("a product held by reports stays usable for those who logged it before; others are told it is under review")
    func heldStaysUsableForItsLoggers() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            let regular = try harness.establishedAccount()
            try harness.log(added.id, by: regular)
            for _ in 0..<3 {
                _ = try await client.call(
                    .post, "/api/foods/products/\(added.id)/reports", json: #"{"reason":"wrong_nutrition"}"#, as: try harness.establishedAccount())
            }
            let mine = try await client.call(.get, "/api/foods/barcode/036000291452", as: regular)
            #expect(mine.status == .ok && mine.json["status"] as? String == "held", "\(mine.text)")
            #expect(try await client.call(.get, "/api/foods/\(added.id)", as: regular).status == .ok)
            let search = try await client.call(.get, "/api/foods/search?q=greek%20yoghurt", as: regular)
            #expect(search.list("results").contains { $0["id"] as? String == added.id })
            let other = try await client.call(.get, "/api/foods/barcode/036000291452", as: harness.stranger)
            #expect(other.status == .notFound && other.errorCode == "product_under_review")
            #expect(try await client.call(.get, "/api/foods/\(added.id)", as: harness.stranger).status == .notFound)
        }
    }

    @Test("an Open Food Facts product is never held by our users' reports; they are kept for the operator")
    func openFoodFactsNeverHeld() async throws {
        let gtin = try #require(GTIN("4260123450014"))
        harness.source.answer(gtin, with: .success(.found(BarcodeRoutesTests.yoghurt)))
        try await harness.withRoutes { client in
            let fetched = try await client.call(.get, "/api/foods/barcode/4260123450014")
            for _ in 0..<5 {
                let answer = try await client.call(
                    .post, "/api/foods/products/\(fetched.id)/reports", json: #"{"reason":"wrong_nutrition","note":"not what the pack says"}"#,
                    as: try harness.establishedAccount())
                #expect(answer.status == .accepted && answer.json["counted"] as? Bool == false && answer.json["held"] as? Bool == false)
            }
            #expect(try await client.call(.get, "/api/foods/barcode/4260123450014", as: harness.stranger).status == .ok)
            let added = try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "4260123450014"))
            #expect(
                added.status == .conflict && added.details["existingProductId"] as? String == fetched.id,
                "a barcode Open Food Facts has takes no user's product: \(added.text)")
        }
        try await harness.withAdminRoutes { admin in
            let reported = try await admin.call(.get, "/admin/foods/reported").list("products")
            #expect(reported.count == 1 && (reported.first?["reports"] as? [[String: Any]])?.count == 5)
            #expect((reported.first?["product"] as? [String: Any])?["source"] as? String == "openfoodfacts")
        }
    }

    @Test("flooding creations: past 20 products in 24 hours it is 429 product_limit_reached with Retry-After, free again as the day moves on")
    func floodingCreations() async throws {
        let flooder = UUID()
        try await harness.withRoutes { client in
            for index in 0..<20 {
                let barcode = Self.ean13(prefix: "42601234\(String(format: "%04d", index))")
                #expect(
                    try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: barcode), as: flooder).status == .created)
                harness.clock.advance(seconds: 60)
            }
            let refused = try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "036000291452"), as: flooder)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "product_limit_reached", "\(refused.text)")
            #expect(refused.headers[.retryAfter] == String(86400 - 20 * 60) && refused.details["limit"] as? String == "20")
            #expect(try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "036000291452")).status == .created)
            harness.clock.advance(seconds: 86400 - 20 * 60 + 1)
            let next = try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "4006381333931"), as: flooder)
            #expect(next.status == .created, "the first product of the day left the window: \(next.text)")
        }
    }

    @Test("flooding reports: past 5 in 24 hours it is 429 report_limit_reached; reporting one product again does not count")
    func floodingReports() async throws {
        let reporter = try harness.establishedAccount()
        try await harness.withRoutes { client in
            var ids: [String] = []
            for index in 0..<6 { ids.append(try await client.addProduct(barcode: Self.ean13(prefix: "42601234\(String(format: "%04d", index))")).id) }
            for id in ids.prefix(5) {
                #expect(
                    try await client.call(.post, "/api/foods/products/\(id)/reports", json: #"{"reason":"other"}"#, as: reporter).status == .accepted)
            }
            let again = try await client.call(.post, "/api/foods/products/\(ids[0])/reports", json: #"{"reason":"other"}"#, as: reporter)
            #expect(again.status == .accepted, "a report sent before is answered as before")
            let refused = try await client.call(.post, "/api/foods/products/\(ids[5])/reports", json: #"{"reason":"other"}"#, as: reporter)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "report_limit_reached" && refused.headers[.retryAfter] == "86400")
        }
    }

    /// The EAN-13 of 12 digits with its check digit.
    static func ean13(prefix: String) -> String {
        let digits = prefix.compactMap(\.wholeNumberValue)
        let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return prefix + String((10 - sum % 10) % 10)
    }
}
