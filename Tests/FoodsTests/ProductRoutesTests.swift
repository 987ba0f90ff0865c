import FoodData
import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// Products from users at the router: adding (checked, one per barcode), editing (the author only, versioned),
/// reporting (enough users hold a product back until an operator looks), listing one's own.
@Suite("Products from users at the router")
struct ProductRoutesTests {
    let harness = FoodsRouterHarness()

    @Test("a new product is 201 with its location and version, visible at once to its author and to everyone as community")
    func added() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            #expect(added.headers[.location] == "/api/foods/\(added.id)" && added.headers[.eTag] == "\"1\"")
            #expect(added.json["source"] as? String == "community" && added.json["mine"] as? Bool == true)
            #expect(added.json["complete"] as? Bool == true && (added.json["missingNutrients"] as? [String]) == ["fiber"], "fibre was not given")
            #expect(added.object("per100g")["sodium"] as? Double == 40, "salt 0.1 g is 40 mg of sodium")
            #expect(added.object("perServing")["protein"] as? Double == 15)
            #expect(added.json["attribution"] is NSNull, "no attribution on a user's product")
            let seen = try await client.call(.get, "/api/foods/\(added.id)", as: harness.stranger)
            #expect(seen.status == .ok && seen.json["mine"] as? Bool == false && seen.json["name"] as? String == "Greek yoghurt")
            #expect(harness.store.published.count == 1 && harness.store.published.first?.authorId == harness.owner)
        }
    }

    @Test("a second product with the same barcode, in any spelling, is 409 duplicate_barcode pointing at the first")
    func duplicate() async throws {
        try await harness.withRoutes { client in
            let first = try await client.addProduct(barcode: "036000291452")
            let second = try await client.call(
                .post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "0036000291452", name: "Other yoghurt"), as: harness.stranger)
            #expect(second.status == .conflict && second.errorCode == "duplicate_barcode", "\(second.text)")
            #expect(second.details["existingProductId"] as? String == first.id && second.details["barcode"] as? String == "00036000291452")
        }
    }

    @Test(
        "labels that cannot be right are 422 naming each problem",
        arguments: [
            (#"{"per100ml":{"calories":1,"protein":0,"carbs":0,"fat":0}}"#, "per100ml"),
            (#"{"servingSize":{"amount":0}}"#, "servingSize.amount"),
            (#"{"servingSize":{"amount":100,"unit":"ml"}}"#, "servingSize.unit"),
            (#"{"allergens":["milk","chocolate"]}"#, "allergens[1]"),
            (#"{"novaGroup":5}"#, "novaGroup"),
            (#"{"nutriScore":"f"}"#, "nutriScore"),
            (#"{"vegan":true,"vegetarian":false}"#, "vegetarian"),
            (#"{"name":"  "}"#, "name"),
        ])
    func invalidChanges(changes: String, field: String) async throws {
        try await harness.withRoutes { client in
            let answer = try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "036000291452", changes: changes))
            #expect(answer.status == .unprocessableContent && answer.details[field] != nil, "\(answer.text)")
            #expect(harness.store.published.isEmpty, "nothing stored")
        }
    }

    @Test("nutrients are checked: ranges, sugars within carbs, saturated fat within fat, energy against macros, salt against sodium")
    func nutrientRules() async throws {
        try await harness.withRoutes { client in
            func post(_ nutrients: String) async throws -> FoodsAnswer {
                try await client.call(
                    .post, "/api/foods/products", json: #"{"barcode":"036000291452","name":"Test","per100g":\#(nutrients)}"#)
            }
            let kilojoules = try await post(#"{"calories":1590,"protein":8.8,"carbs":78,"fat":5}"#)
            #expect(kilojoules.status == .unprocessableContent && kilojoules.details["per100g.calories"] != nil, "\(kilojoules.text)")
            let sugars = try await post(#"{"calories":60,"protein":10,"carbs":3.6,"fat":0.4,"sugars":5}"#)
            #expect(sugars.details["per100g.sugars"] != nil, "\(sugars.text)")
            let saturated = try await post(#"{"calories":60,"protein":10,"carbs":3.6,"fat":0.4,"saturatedFat":1}"#)
            #expect(saturated.details["per100g.saturatedFat"] != nil)
            let negative = try await post(#"{"calories":-1,"protein":101,"carbs":3.6,"fat":0.4}"#)
            #expect(negative.details["per100g.calories"] != nil && negative.details["per100g.protein"] != nil)
            let salt = try await post(#"{"calories":60,"protein":10,"carbs":3.6,"fat":0.4,"salt":1,"sodium":100}"#)
            #expect(salt.details["per100g.salt"] != nil)
            let missing = try await post(#"{"calories":60}"#)
            #expect(missing.details["per100g.protein"] != nil && missing.details["per100g.carbs"] != nil && missing.details["per100g.fat"] != nil)
            let badCode = try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "036000291453"))
            #expect(badCode.status == .unprocessableContent && badCode.errorCode == "invalid_barcode", "\(badCode.text)")
            let unreadable = try await client.call(.post, "/api/foods/products", json: #"{"barcode":12}"#)
            #expect(
                unreadable.status == .unprocessableContent && unreadable.details["barcode"] as? String == "must be a string", "\(unreadable.text)")
        }
    }

    @Test("a drink is per 100 ml with servings in ml")
    func drink() async throws {
        try await harness.withRoutes { client in
            let answer = try await client.call(
                .post, "/api/foods/products",
                json:
                    #"{"barcode":"4260123450076","name":"Lemonade","servingSize":{"amount":330,"unit":"ml"},"per100ml":{"calories":42,"protein":0,"carbs":10.4,"fat":0},"vegan":true}"#
            )
            #expect(answer.status == .created && answer.json["basis"] as? String == "100ml" && answer.json["per100g"] == nil, "\(answer.text)")
            #expect(answer.object("perServing")["calories"] as? Double == 138.6 && answer.json["vegetarian"] as? Bool == true)
        }
    }

    @Test("the author edits a product into a new version; others are 403 not_author; a stale If-Match is 409; versions are listed")
    func edits() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            let path = "/api/foods/products/\(added.id)"
            let edited = try await client.call(.put, path, json: FoodsFixtures.draft(barcode: "036000291452", name: "Greek yoghurt 0 %"))
            #expect(edited.status == .ok && edited.json["version"] as? Int == 2 && edited.headers[.eTag] == "\"2\"", "\(edited.text)")
            let stale = try await client.call(.put, path, json: FoodsFixtures.draft(barcode: "036000291452"), headers: [.ifMatch: "\"1\""])
            #expect(stale.status == .conflict && stale.errorCode == "version_conflict")
            let other = try await client.call(.put, path, json: FoodsFixtures.draft(barcode: "036000291452"), as: harness.stranger)
            #expect(other.status == .forbidden && other.errorCode == "not_author")
            let moved = try await client.call(.put, path, json: FoodsFixtures.draft(barcode: "4260123450076"))
            #expect(moved.status == .unprocessableContent && moved.details["barcode"] != nil)
            let versions = try await client.call(.get, "\(path)/versions")
            let listed = versions.list("versions")
            #expect(listed.map { $0["version"] as? Int } == [2, 1])
            #expect((listed.first?["product"] as? [String: Any])?["name"] as? String == "Greek yoghurt 0 %")
            #expect(
                try await client.call(.put, "/api/foods/products/\(UUID())", json: FoodsFixtures.draft(barcode: "036000291452")).status == .notFound)
        }
    }

    @Test("reports from enough established accounts hold a product back from others (not from its author) until an operator reinstates it")
    func reportsHold() async throws {
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            let reports = "/api/foods/products/\(added.id)/reports"
            let own = try await client.call(.post, reports, json: #"{"reason":"wrong_nutrition"}"#)
            #expect(own.status == .forbidden && own.errorCode == "own_product")
            let bad = try await client.call(.post, reports, json: #"{"reason":"ugly"}"#, as: harness.stranger)
            #expect(bad.status == .unprocessableContent && bad.details["reason"] != nil)
            let reporters = [try harness.establishedAccount(), try harness.establishedAccount(), try harness.establishedAccount()]
            for (index, reporter) in reporters.enumerated() {
                let answer = try await client.call(.post, reports, json: #"{"reason":"wrong_nutrition","note":"kJ as kcal"}"#, as: reporter)
                #expect(
                    answer.status == .accepted && answer.json["reports"] as? Int == index + 1 && answer.json["counted"] as? Bool == true,
                    "\(answer.text)")
                #expect(answer.json["held"] as? Bool == (index == 2))
                if index == 0 {
                    let again = try await client.call(.post, reports, json: #"{"reason":"other"}"#, as: reporter)
                    #expect(again.json["reports"] as? Int == 1, "a user's second report is not counted again")
                }
            }
            let others = try await client.call(.get, "/api/foods/barcode/036000291452", as: harness.stranger)
            #expect(others.status == .notFound && others.errorCode == "product_under_review", "\(others.text)")
            #expect(try await client.call(.get, "/api/foods/\(added.id)", as: harness.stranger).status == .notFound)
            let search = try await client.call(.get, "/api/foods/search?q=greek%20yoghurt", as: harness.stranger)
            #expect(!search.list("results").contains { $0["id"] as? String == added.id })
            let author = try await client.call(.get, "/api/foods/barcode/036000291452")
            #expect(author.status == .ok && author.json["status"] as? String == "held")
            #expect(harness.store.published.last?.offered == false)
        }
        try await harness.withAdminRoutes { admin in
            let held = try await admin.call(.get, "/admin/foods/held")
            let entry = try #require(held.list("products").first)
            #expect((entry["reports"] as? [[String: Any]])?.count == 3)
            let id = try #require((entry["product"] as? [String: Any])?["id"] as? String)
            let invalid = try await admin.call(.post, "/admin/foods/products/\(id)/review", json: #"{"decision":"maybe"}"#)
            #expect(invalid.status == .unprocessableContent)
            let reinstated = try await admin.call(.post, "/admin/foods/products/\(id)/review", json: #"{"decision":"reinstate"}"#)
            #expect(reinstated.status == .ok && reinstated.json["status"] as? String == "offered", "\(reinstated.text)")
            #expect(try await admin.call(.post, "/admin/foods/products/\(UUID())/review", json: #"{"decision":"remove"}"#).status == .notFound)
        }
        try await harness.withRoutes { client in
            let reinstated = try await client.call(.get, "/api/foods/barcode/036000291452", as: harness.stranger)
            #expect(reinstated.status == .ok, "offered again once reinstated")
        }
    }

    @Test("a product an operator removed is gone for everyone, its author included, and its barcode cannot be added again")
    func removed() async throws {
        let productId = Mutex<String>("")
        try await harness.withRoutes { client in
            let added = try await client.addProduct(barcode: "036000291452")
            productId.withLock { $0 = added.id }
        }
        let id = productId.withLock { $0 }
        try await harness.withAdminRoutes { admin in
            let removed = try await admin.call(.post, "/admin/foods/products/\(id)/review", json: #"{"decision":"remove"}"#)
            #expect(removed.status == .ok && removed.json["status"] as? String == "removed", "\(removed.text)")
        }
        try await harness.withRoutes { client in
            let lookup = try await client.call(.get, "/api/foods/barcode/036000291452")
            #expect(lookup.status == .notFound && lookup.errorCode == "product_not_found")
            #expect(try await client.call(.get, "/api/foods/\(id)").status == .notFound)
            let again = try await client.call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: "036000291452"), as: harness.stranger)
            #expect(again.status == .conflict && again.errorCode == "duplicate_barcode", "\(again.text)")
            #expect(harness.store.published.last?.offered == false)
        }
    }

    @Test("a caller lists their own products, newest first; without mine=true it is 422")
    func mine() async throws {
        try await harness.withRoutes { client in
            _ = try await client.addProduct(barcode: "036000291452")
            harness.clock.advance(seconds: 60)
            _ = try await client.addProduct(barcode: "4260123450076", name: "Second")
            _ = try await client.addProduct(barcode: "4260123450014", as: harness.stranger)
            let mine = try await client.call(.get, "/api/foods/products?mine=true")
            #expect(mine.list("products").map { $0["name"] as? String } == ["Second", "Greek yoghurt"])
            #expect(try await client.call(.get, "/api/foods/products").status == .unprocessableContent)
        }
    }
}
