import FoodData
import Foundation
import HTTPTypes
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// `GET /api/foods/barcode/{code}` on in-memory products and a scripted Open Food Facts: every spelling of one code,
/// named barcode problems, the look-up order, what is stored and remembered, and what is not when OFF cannot answer.
@Suite("Barcode look-up at the router")
struct BarcodeRoutesTests {
    let harness = FoodsRouterHarness()

    static let yoghurt = ProductDetails(
        name: "Naturjoghurt", brand: "Alpenhof", basis: .per100g,
        per100: ProductNutrients(calories: 68, protein: 4.1, carbs: 4.7, fat: 3.5, fiber: 0, sugars: 4.7, saturatedFat: 2.3, sodium: 52),
        servingSize: .init(amount: 150, unit: "g"), allergens: [.milk], vegan: false, vegetarian: true, novaGroup: 1, nutriScore: "a")

    @Test("every printed form of one product's code finds it: UPC-A, EAN-13, GTIN-14, spaced and hyphenated")
    func everySpelling() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            for code in ["036000291452", "0036000291452", "00036000291452", "0 36000 29145 2", "036000-291452"] {
                let found = try await client.call(.get, "/api/foods/barcode/\(code.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)")
                #expect(found.status == .ok && found.id == added.id, "\(code): \(found.text)")
                #expect(found.json["barcode"] as? String == "00036000291452")
            }
            #expect(
                harness.source.asked == [GTIN("036000291452")],
                "Open Food Facts is asked once whether it has a user's product's code (its miss is kept)")
        }
    }

    @Test("a UPC-E code finds the product stored under its UPC-A expansion")
    func upcE() async throws {
        try await harness.withRoutes { client in
            // UPC-E 04252614 expands to UPC-A 042100005264.
            let added = try await client.addProduct(barcode: "042100005264")
            let found = try await client.call(.get, "/api/foods/barcode/04252614")
            #expect(found.status == .ok && found.id == added.id, "\(found.text)")
        }
    }

    @Test(
        "codes that are not barcodes are 422 invalid_barcode naming the problem",
        arguments: [
            ("036000291453", "check digit"), ("03600029145", "11"), ("03600029145x", "digits only"), ("123456789012345", "15"),
        ])
    func invalid(code: String, named: String) async throws {
        try await harness.withRoutes { client in
            let answer = try await client.call(.get, "/api/foods/barcode/\(code)")
            #expect(answer.status == .unprocessableContent && answer.errorCode == "invalid_barcode", "\(answer.text)")
            #expect((answer.details["barcode"] as? String)?.contains(named) == true, "\(answer.text)")
            #expect(harness.source.asked.isEmpty)
        }
    }

    @Test("a code we lack is fetched from Open Food Facts once, stored with its source, fetch time and attribution")
    func fetchedOnce() async throws {
        let gtin = try #require(GTIN("4260123450014"))
        harness.source.answer(gtin, with: .success(.found(Self.yoghurt)))
        try await harness.withRoutes { client in
            let first = try await client.call(.get, "/api/foods/barcode/4260123450014")
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.json["source"] as? String == "openfoodfacts" && first.json["fetchedAt"] as? String != nil)
            #expect((first.object("attribution")["license"] as? String) == "ODbL-1.0")
            #expect((first.object("attribution")["sourceUrl"] as? String)?.hasSuffix("/product/4260123450014") == true)
            #expect(first.object("per100g")["calories"] as? Double == 68 && first.object("perServing")["calories"] as? Double == 102)
            let second = try await client.call(.get, "/api/foods/barcode/4260123450014")
            #expect(second.status == .ok && second.id == first.id)
            #expect(harness.source.asked == [gtin], "the second look-up is answered from the store")
            #expect(harness.store.published.map(\.source) == ["openfoodfacts"], "one food.product_changed for the new product")
        }
    }

    @Test("a code Open Food Facts lacks is 404 product_not_found with a hint, remembered until the miss TTL passes")
    func missRemembered() async throws {
        try await harness.withRoutes { client in
            let first = try await client.call(.get, "/api/foods/barcode/5000000000005")
            #expect(first.status == .notFound && first.errorCode == "product_not_found", "\(first.text)")
            #expect((first.json["error"] as? [String: Any])?["message"] as? String ?? "" != "")
            #expect(first.details["externalLookup"] as? String == "not_found" && first.details["barcode"] as? String == "05000000000005")
            #expect(try await client.call(.get, "/api/foods/barcode/5000000000005").status == .notFound)
            #expect(harness.source.asked.count == 1, "the miss is remembered")
            harness.clock.advance(seconds: harness.missTTL + 1)
            #expect(try await client.call(.get, "/api/foods/barcode/5000000000005").status == .notFound)
            #expect(harness.source.asked.count == 2, "asked again once the miss is older than its TTL")
        }
    }

    @Test(
        "Open Food Facts not asked (unreachable, cut off, breaker open, budget spent) is 404 product_not_found saying why, so the app offers to add it; nothing is remembered",
        arguments: [ExternalLookup.unavailable, .budgetExhausted])
    func unavailable(cause: ExternalLookup) async throws {
        let gtin = try #require(GTIN("4260123450021"))
        harness.source.answer(gtin, with: .failure(ProductSourceUnavailable(reason: "answered 429", retryAfter: .seconds(30), cause: cause)))
        try await harness.withRoutes { client in
            let answer = try await client.call(.get, "/api/foods/barcode/4260123450021")
            #expect(answer.status == .notFound && answer.errorCode == "product_not_found", "\(answer.text)")
            #expect(answer.details["externalLookup"] as? String == cause.rawValue && answer.headers[.retryAfter] == nil, "\(answer.text)")
            #expect(harness.store.misses.isEmpty, "an unanswered look-up is not a miss")
            harness.source.answer(gtin, with: .success(.found(Self.yoghurt)))
            #expect(try await client.call(.get, "/api/foods/barcode/4260123450021").status == .ok, "the next look-up asks again")
            #expect(harness.source.asked == [gtin, gtin])
        }
    }

    @Test("a stored OFF product past its refresh age is fetched again; when the refresh fails it is answered as stored")
    func refresh() async throws {
        let gtin = try #require(GTIN("4260123450014"))
        harness.source.answer(gtin, with: .success(.found(Self.yoghurt)))
        try await harness.withRoutes { client in
            let first = try await client.call(.get, "/api/foods/barcode/4260123450014")
            harness.clock.advance(seconds: harness.refreshAfter + 1)
            var changed = Self.yoghurt
            changed.per100.calories = 70
            harness.source.answer(gtin, with: .success(.found(changed)))
            let refreshed = try await client.call(.get, "/api/foods/barcode/4260123450014")
            #expect(refreshed.id == first.id && refreshed.json["version"] as? Int == 2 && refreshed.object("per100g")["calories"] as? Double == 70)
            harness.clock.advance(seconds: harness.refreshAfter + 1)
            harness.source.answer(gtin, with: .failure(ProductSourceUnavailable(reason: "down", retryAfter: .seconds(5))))
            let stale = try await client.call(.get, "/api/foods/barcode/4260123450014")
            #expect(stale.status == .ok && stale.json["version"] as? Int == 2, "\(stale.text)")
        }
    }

    @Test("with Open Food Facts switched off a code we lack is 404 without asking")
    func switchedOff() async throws {
        var switchedOff = harness
        switchedOff.openFoodFactsEnabled = false
        let source = switchedOff.source
        try await switchedOff.withRoutes { client in
            let answer = try await client.call(.get, "/api/foods/barcode/4260123450014")
            #expect(answer.status == .notFound && answer.errorCode == "product_not_found")
            #expect(answer.details["externalLookup"] as? String == "disabled")
            #expect(source.asked.isEmpty)
        }
    }
}
