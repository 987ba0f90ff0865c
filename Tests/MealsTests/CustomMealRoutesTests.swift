import Foundation
import HTTPTypes
import Testing

@testable import MealsService

/// `/api/custom-meals` and the food table at the router: saved meals created, listed, read, replaced under versions
/// and last-write-wins, logged as consumed meals and deleted for good; food search and a food's nutrients.
@Suite("Custom meal and food routes on an in-memory store")
struct CustomMealRoutesTests {
    let harness = MealsRouterHarness()
    static let breakfast =
        #"{"name":"Usual breakfast","mealType":"breakfast","tags":["Weekday"],"items":[{"foodId":"01123","quantity":2,"unit":"large"},"#
        + #"{"name":"Protein shake","grams":300,"calories":180,"protein":30}]}"#

    @Test("a custom meal is saved with its totals, listed by name, read, and logged as a consumed meal with its items and tags")
    func saveAndLog() async throws {
        try await harness.withRoutes { client in
            let created = try await client.call(.post, "/api/custom-meals", json: Self.breakfast)
            #expect(created.status == .created && created.number("version") == 1 && created.json["tags"] as? [String] == ["weekday"])
            #expect(((created.json["totals"] as? [String: Any])?["calories"] as? NSNumber)?.doubleValue == 323, "two large eggs + the shake")
            _ = try await client.call(.post, "/api/custom-meals", json: #"{"name":"Apple snack","items":[{"foodId":"09003","grams":180}]}"#)
            let list = try await client.call(.get, "/api/custom-meals")
            #expect(list.list("customMeals").map { $0["name"] as? String } == ["Apple snack", "Usual breakfast"])
            let firstPage = try await client.call(.get, "/api/custom-meals?limit=1")
            let cursor = try #require(firstPage.json["nextCursor"] as? String)
            let secondPage = try await client.call(.get, "/api/custom-meals?limit=1&cursor=\(cursor)")
            #expect(secondPage.list("customMeals").map { $0["name"] as? String } == ["Usual breakfast"] && secondPage.json["nextCursor"] == nil)
            #expect(try await client.call(.get, "/api/custom-meals/\(created.id)").json["name"] as? String == "Usual breakfast")

            let logged = try await client.call(.post, "/api/custom-meals/\(created.id)/log", json: #"{"notes":"at the desk"}"#)
            #expect(logged.status == .created && logged.json["isConsumed"] as? Bool == true && logged.json["origin"] as? String == "custom_meal")
            #expect(logged.json["title"] as? String == "Usual breakfast" && logged.json["mealType"] as? String == "breakfast")
            #expect(
                logged.list("items").count == 2 && logged.json["tags"] as? [String] == ["weekday"] && logged.json["notes"] as? String == "at the desk"
            )
            #expect(harness.store.events.map(\.kind) == [.changed], "logging publishes the new meal")
        }
    }

    @Test("refusals: invalid fields are 422 naming each, another user's custom meal 404 everywhere, a bad cursor 400, a bad limit 422")
    func refusals() async throws {
        try await harness.withRoutes { client in
            let bad = try await client.call(.post, "/api/custom-meals", json: #"{"name":"","items":[{"foodId":"nope"}],"mealType":"brunch"}"#)
            #expect(bad.status == .unprocessableContent && bad.details["name"] != nil && bad.details["items[0].foodId"] != nil)
            #expect(bad.details["mealType"] != nil)
            let created = try await client.call(.post, "/api/custom-meals", json: Self.breakfast)
            let path = "/api/custom-meals/\(created.id)"
            for (method, uri, json) in [
                (HTTPRequest.Method.get, path, nil as String?), (.put, path, Self.breakfast), (.delete, path, nil), (.post, path + "/log", "{}"),
            ] {
                let answer = try await client.call(method, uri, json: json, as: harness.stranger)
                #expect(answer.status == .notFound, "\(method) \(uri) answered \(answer.status) to a stranger")
            }
            #expect(try await client.call(.get, "/api/custom-meals?cursor=garbage").status == .unprocessableContent)
            #expect(try await client.call(.get, "/api/custom-meals?limit=101").status == .unprocessableContent)
            let badLog = try await client.call(.post, path + "/log", json: #"{"eatenAt":"later"}"#)
            #expect(badLog.status == .unprocessableContent && badLog.details["eatenAt"] != nil)
        }
    }

    @Test("a replace bumps the version; a stale If-Match is 409; an older modifiedAt is kept out; a free id is created (201)")
    func replace() async throws {
        try await harness.withRoutes { client in
            let created = try await client.call(
                .post, "/api/custom-meals", json: #"{"name":"Oats","items":[{"foodId":"20045","grams":50}],"modifiedAt":"2026-05-10T11:00:00Z"}"#)
            let path = "/api/custom-meals/\(created.id)"
            let replaced = try await client.call(
                .put, path, json: #"{"name":"Big oats","items":[{"foodId":"20045","grams":80}]}"#, headers: [.ifMatch: "\"1\""])
            #expect(replaced.status == .ok && replaced.number("version") == 2 && replaced.json["name"] as? String == "Big oats")
            let stale = try await client.call(
                .put, path, json: #"{"name":"Oats","items":[{"foodId":"20045","grams":50}]}"#, headers: [.ifMatch: "\"1\""])
            #expect(stale.status == .conflict && stale.errorCode == "version_conflict")
            let older = try await client.call(
                .put, path, json: #"{"name":"Old oats","items":[{"foodId":"20045","grams":40}],"modifiedAt":"2026-05-10T10:00:00Z"}"#)
            #expect(older.json["name"] as? String == "Big oats" && older.json["conflict"] as? String == "stale_write_ignored")

            let chosen = UUID().uuidString.lowercased()
            let made = try await client.call(.put, "/api/custom-meals/\(chosen)", json: Self.breakfast)
            #expect(made.status == .created && made.id == chosen)
            #expect(try await client.call(.put, "/api/custom-meals/\(chosen)", json: Self.breakfast, as: harness.stranger).status == .notFound)
        }
    }

    @Test("custom meals answer Location and ETag where meals do: POST, GET, PUT creating (201), replacing, kept as stale; a tombstone neither")
    func locationAndVersionLikeMeals() async throws {
        try await harness.withRoutes { client in
            /// Each step's status and its `Location` and `ETag`, the id in `Location` written as `{id}`.
            func steps(_ collection: String, body: (String) -> String) async throws -> [String] {
                var seen: [String] = []
                func record(_ answer: Answer, id: String) {
                    let location = answer.headers[.location]?.replacingOccurrences(of: id, with: "{id}") ?? "-"
                    seen.append("\(answer.status.code) \(location) \(answer.headers[.eTag] ?? "-")")
                }
                let posted = try await client.call(.post, "/api/\(collection)", json: body("2026-05-10T11:00:00Z"))
                record(posted, id: posted.id)
                record(try await client.call(.get, "/api/\(collection)/\(posted.id)"), id: posted.id)
                let chosen = UUID().uuidString.lowercased()
                let path = "/api/\(collection)/\(chosen)"
                record(try await client.call(.put, path, json: body("2026-05-10T11:00:00Z")), id: chosen)
                record(try await client.call(.put, path, json: body("2026-05-10T12:00:00Z")), id: chosen)
                record(try await client.call(.put, path, json: body("2026-05-10T10:00:00Z")), id: chosen)
                #expect(try await client.call(.delete, path).status == .noContent)
                record(try await client.call(.put, path, json: body("2026-05-10T13:00:00Z")), id: chosen)
                return seen
            }
            let meals = try await steps("meals") { #"{"items":[{"foodId":"09040","grams":120}],"title":"Banana","modifiedAt":"\#($0)"}"# }
            let customMeals = try await steps("custom-meals") { #"{"name":"Banana","items":[{"foodId":"09040","grams":120}],"modifiedAt":"\#($0)"}"# }
            #expect(
                meals == [
                    #"201 /api/meals/{id} "1""#, #"200 /api/meals/{id} "1""#, #"201 /api/meals/{id} "1""#, #"200 /api/meals/{id} "2""#,
                    #"200 /api/meals/{id} "2""#, "200 - -",
                ])
            #expect(customMeals == meals.map { $0.replacingOccurrences(of: "/api/meals/", with: "/api/custom-meals/") })
        }
    }

    @Test("a deleted custom meal stays deleted: deleting again is 204, a later write answers its tombstone, If-Match 404")
    func deletion() async throws {
        try await harness.withRoutes { client in
            let created = try await client.call(.post, "/api/custom-meals", json: Self.breakfast)
            let path = "/api/custom-meals/\(created.id)"
            #expect(try await client.call(.delete, path).status == .noContent)
            #expect(try await client.call(.delete, path).status == .noContent)
            #expect(try await client.call(.get, path).status == .notFound)
            let late = try await client.call(.put, path, json: Self.breakfast)
            #expect(late.status == .ok && late.json["deleted"] as? Bool == true && late.json["type"] as? String == "custom_meal")
            #expect(try await client.call(.put, path, json: Self.breakfast, headers: [.ifMatch: "\"1\""]).status == .notFound)
            #expect(try await client.call(.delete, "/api/custom-meals/\(UUID())").status == .notFound)
        }
    }
}
