import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// `GET /api/foods/search` and `GET /api/foods/{id}` at the router: USDA foods and products together, each kind
/// answered in its shape, and the refusals.
@Suite("Food search and food ids at the router")
struct FoodSearchRoutesTests {
    let harness = FoodsRouterHarness()

    @Test("search finds table foods despite a typo and products by name or brand, best first, within the limit")
    func mixed() async throws {
        try await harness.withRoutes { client in
            let product = try await client.addProduct(barcode: "036000291452", name: "Banana yoghurt")
            let search = try await client.call(.get, "/api/foods/search?q=banana&limit=5")
            let results = search.list("results")
            #expect(search.status == .ok && results.count == 5, "\(search.text)")
            #expect(Set(results.compactMap { $0["kind"] as? String }) == ["generic", "product"])
            let relevances = results.compactMap { $0["relevance"] as? Double }
            #expect(relevances == relevances.sorted(by: >), "best first")
            let found = try #require(results.first { $0["id"] as? String == product.id })
            #expect(found["source"] as? String == "community" && found["brand"] as? String == "Dairy Hill" && found["barcode"] != nil)
            let typo = try await client.call(.get, "/api/foods/search?q=banan&limit=5")
            #expect(
                typo.list("results").contains {
                    ($0["name"] as? String)?.lowercased().contains("banana") == true && $0["kind"] as? String == "generic"
                })
        }
    }

    @Test("a USDA id answers the table food with every nutrient; a product id the product; others 404")
    func show() async throws {
        try await harness.withRoutes { client in
            let food = try await client.call(.get, "/api/foods/09040")
            #expect(food.status == .ok && food.json["kind"] as? String == "generic" && food.json["source"] as? String == "usda")
            #expect((food.json["nutrients"] as? [String: Any])?.isEmpty == false)
            let product = try await client.addProduct(barcode: "036000291452")
            let shown = try await client.call(.get, "/api/foods/\(product.id)")
            #expect(shown.status == .ok && shown.json["kind"] as? String == "product")
            #expect(try await client.call(.get, "/api/foods/99999").status == .notFound)
            #expect(try await client.call(.get, "/api/foods/\(UUID())").status == .notFound)
        }
    }

    @Test("search refusals: empty or long queries and limits outside 1-50 are 422 naming both")
    func refusals() async throws {
        try await harness.withRoutes { client in
            let empty = try await client.call(.get, "/api/foods/search?q=%20&limit=0")
            #expect(empty.status == .unprocessableContent && empty.details["q"] != nil && empty.details["limit"] != nil)
            let long = try await client.call(.get, "/api/foods/search?q=\(String(repeating: "a", count: 101))")
            #expect(long.status == .unprocessableContent && long.details["q"] != nil)
        }
    }

    @Test("a request without the gateway's identity headers is 401 on every foods route")
    func withoutIdentity() async throws {
        try await harness.withRoutes { client in
            for (method, uri) in [
                (HTTPRequest.Method.get, "/api/foods/search?q=apple"), (.get, "/api/foods/09040"), (.get, "/api/foods/barcode/036000291452"),
                (.post, "/api/foods/products"), (.get, "/api/foods/products?mine=true"), (.put, "/api/foods/products/\(UUID())"),
                (.get, "/api/foods/products/\(UUID())/versions"), (.post, "/api/foods/products/\(UUID())/reports"),
            ] {
                let answer = try await client.client.execute(uri: uri, method: method, headers: [:], body: nil)
                #expect(answer.status == .unauthorized, "\(method) \(uri) answered \(answer.status)")
            }
        }
    }
}
