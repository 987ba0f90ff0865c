import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import MealsService

/// `/api/meals` at the router on an in-memory store: manual entry, read, edit with versions and last-write-wins,
/// consume and unconsume, delete, lists with filters and cursors, and every refusal in the error shape. The tests about
/// days (a meal's local date, the date filters) run with each of `TestToday.variety` as today, the owner in its zone;
/// the others are day-independent (explicit instants, no date read).
@Suite("Meal routes on an in-memory store")
struct MealRoutesTests {
    let harness = MealsRouterHarness()

    @Test("a manual entry is scored from the table, answered 201 with its version as ETag, and read back; bad entries are 422 naming each field")
    func createAndRead() async throws {
        try await harness.withRoutes { client in
            let created = try await client.createMeal(grams: 200, extra: #","title":"Two bananas","mealType":"snack","tags":[" Post-Run "]"#)
            #expect(created.headers[.eTag] == "\"1\"")
            #expect(created.number("version") == 1 && created.json["edited"] as? Bool == false && created.json["isConsumed"] as? Bool == true)
            let totals = try #require(created.json["totals"] as? [String: Any])
            #expect((totals["calories"] as? NSNumber)?.doubleValue == 178, "200 g of banana at 89 kcal per 100 g")
            #expect(created.json["tags"] as? [String] == ["post-run"])
            #expect(harness.store.events.map(\.kind) == [.changed])

            let read = try await client.call(.get, "/api/meals/\(created.id)")
            #expect(read.status == .ok && read.headers[.eTag] == "\"1\"" && read.json["title"] as? String == "Two bananas")

            let invalid = try await client.call(
                .post, "/api/meals", json: #"{"items":[{"name":"x","grams":-1,"calories":99999},{"foodId":"nope","grams":10}],"mealType":"brunch"}"#)
            #expect(invalid.status == .unprocessableContent && invalid.errorCode == "validation_failed")
            for field in ["items[0].grams", "items[0].calories", "items[1].foodId", "mealType"] {
                #expect(invalid.details[field] != nil, "\(field) is not named: \(invalid.text)")
            }
            let malformed = try await client.call(.post, "/api/meals", json: #"{"items":"#)
            #expect(malformed.status == .badRequest)
            #expect(harness.store.allMeals.count == 1, "nothing refused was stored")
        }
    }

    @Test("another user's meal answers 404 on every route; an id that is not a UUID is 422 naming id")
    func isolation() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let path = "/api/meals/\(meal.id)"
            let attempts: [(HTTPRequest.Method, String, String?)] = [
                (.get, path, nil), (.put, path, #"{"notes":"mine now"}"#), (.delete, path, nil), (.post, path + "/consume", "{}"),
                (.delete, path + "/consume", nil), (.get, path + "/photo", nil), (.delete, path + "/photo", nil),
            ]
            for (method, uri, json) in attempts {
                let answer = try await client.call(method, uri, json: json, as: harness.stranger)
                #expect(answer.status == .notFound && answer.errorCode == "not_found", "\(method) \(uri) answered \(answer.status)")
            }
            #expect(try await client.call(.get, "/api/meals", as: harness.stranger).list("meals").isEmpty)
            let notAnId = try await client.call(.get, "/api/meals/not-a-meal")
            #expect(notAnId.status == .unprocessableContent && notAnId.details["id"] as? String == "must be a UUID")
            let still = try await client.call(.get, path)
            #expect(still.status == .ok && still.json["notes"] == nil && still.number("version") == 1)
        }
    }

    @Test("an edit recomputes the meal, sets edited and bumps the version; a stale If-Match is 409, an unreadable one 400")
    func editWithVersions() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let path = "/api/meals/\(meal.id)"
            let edit = #"{"items":[{"foodId":"01123","grams":150}],"notes":"three eggs really"}"#
            let first = try await client.call(.put, path, json: edit, headers: [.ifMatch: "\"1\""])
            #expect(first.status == .ok && first.headers[.eTag] == "\"2\"")
            #expect(first.json["edited"] as? Bool == true && first.number("version") == 2 && first.json["notes"] as? String == "three eggs really")
            #expect(((first.json["totals"] as? [String: Any])?["calories"] as? NSNumber)?.doubleValue == 215, "150 g of egg at 143 kcal")
            let stale = try await client.call(.put, path, json: edit, headers: [.ifMatch: "\"1\""])
            #expect(stale.status == .conflict && stale.errorCode == "version_conflict" && stale.details["currentVersion"] as? String == "2")
            let unreadable = try await client.call(.put, path, json: edit, headers: [.ifMatch: "soon"])
            #expect(unreadable.status == .badRequest && unreadable.errorCode == "invalid_if_match")
            let invalid = try await client.call(.put, path, json: #"{"items":[{"name":"x","grams":-1}],"eatenAt":"yesterday"}"#)
            #expect(invalid.status == .unprocessableContent && invalid.details["items[0].grams"] != nil && invalid.details["eatenAt"] != nil)
            let inconsistent = try await client.call(.put, path, json: #"{"items":[{"name":"cake","grams":100,"calories":50,"carbs":50,"fat":20}]}"#)
            let items = inconsistent.list("items")
            #expect(inconsistent.status == .ok && items.first?["flags"] as? [String] == ["calories_inconsistent_with_macros"])
            #expect(try await client.call(.get, path).number("version") == 3)
        }
    }

    @Test("last-write-wins: an older modifiedAt is kept out and listed as a conflict; a PUT with items on a free id creates the meal")
    func lastWriteWins() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal(extra: #","modifiedAt":"2026-05-10T11:00:00Z""#)
            let path = "/api/meals/\(meal.id)"
            let newer = try await client.call(.put, path, json: #"{"notes":"newer","modifiedAt":"2026-05-10T11:30:00Z"}"#)
            #expect(newer.status == .ok && newer.json["notes"] as? String == "newer" && newer.json["conflict"] == nil)
            let older = try await client.call(.put, path, json: #"{"notes":"older","modifiedAt":"2026-05-10T11:10:00Z"}"#)
            #expect(older.status == .ok && older.json["notes"] as? String == "newer" && older.json["conflict"] as? String == "stale_write_ignored")
            let conflicts = try await client.call(.get, "/api/sync/meals/conflicts").list("conflicts")
            #expect(conflicts.map { $0["resolution"] as? String } == ["stale_write_ignored"] && conflicts.first?["entityId"] as? String == meal.id)

            let chosen = UUID().uuidString.lowercased()
            let created = try await client.call(.put, "/api/meals/\(chosen)", json: #"{"items":[{"foodId":"09040","grams":120}],"title":"Banana"}"#)
            #expect(created.status == .created && created.id == chosen && created.number("version") == 1)
            let taken = try await client.call(
                .put, "/api/meals/\(chosen)", json: #"{"items":[{"foodId":"09040","grams":50}]}"#, as: harness.stranger)
            #expect(taken.status == .notFound, "another user's id is not theirs to create or edit")
        }
    }

    @Test("consuming counts a scanned meal with its note and type; consuming again keeps its time; unconsuming twice changes it once")
    func consumption() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal(extra: #","consumed":false"#)
            #expect(meal.json["isConsumed"] as? Bool == false && meal.json["consumedAt"] == nil)
            let path = "/api/meals/\(meal.id)"
            let consumed = try await client.call(.post, path + "/consume", json: #"{"notes":"post-run","mealType":"snack"}"#)
            #expect(consumed.status == .ok && consumed.json["isConsumed"] as? Bool == true && consumed.json["consumedAt"] != nil)
            #expect(consumed.json["notes"] as? String == "post-run" && consumed.json["mealType"] as? String == "snack")
            harness.advance(seconds: 60)
            let bare = try await client.call(.post, path + "/consume")
            #expect(bare.status == .ok && bare.json["isConsumed"] as? Bool == true, "the consume body is optional")
            #expect(bare.json["consumedAt"] as? String == consumed.json["consumedAt"] as? String, "consumed once, at the first time")
            let badType = try await client.call(.post, path + "/consume", json: #"{"mealType":"elevenses"}"#)
            #expect(badType.status == .unprocessableContent && badType.details["mealType"] != nil)
            let unconsumed = try await client.call(.delete, path + "/consume")
            #expect(unconsumed.status == .ok && unconsumed.json["isConsumed"] as? Bool == false && unconsumed.json["consumedAt"] == nil)
            let again = try await client.call(.delete, path + "/consume")
            #expect(again.number("version") == unconsumed.number("version"), "unconsuming a scanned meal changes nothing")
            #expect(harness.store.events.map(\.version) == [1, 2, 3, 4])
        }
    }

    @Test("a deletion is 204 and final: a replay is 204, the meal is 404, a later write answers its tombstone, If-Match 404")
    func deletion() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let path = "/api/meals/\(meal.id)"
            #expect(try await client.call(.delete, path).status == .noContent)
            #expect(try await client.call(.delete, path).status == .noContent)
            #expect(try await client.call(.get, path).status == .notFound)
            let late = try await client.call(.put, path, json: #"{"notes":"offline edit"}"#)
            #expect(late.status == .ok && late.json["deleted"] as? Bool == true && late.json["conflict"] as? String == "deletion_preserved")
            #expect(late.number("version") == 2 && late.json["type"] as? String == "meal")
            #expect(try await client.call(.put, path, json: #"{"notes":"x"}"#, headers: [.ifMatch: "\"1\""]).status == .notFound)
            #expect(try await client.call(.delete, "/api/meals/\(UUID())").status == .notFound, "never theirs")
            #expect(harness.store.events.last == .init(kind: .deleted, mealId: UUID(uuidString: meal.id)!, version: 2))
        }
    }

    @Test(
        "lists page with a cursor without skipping or repeating meals eaten at one instant, and filter by status, type, the user's dates and tag",
        arguments: TestToday.variety)
    func listing(day: TestToday) async throws {
        let harness = MealsRouterHarness(today: day)
        try await harness.withRoutes { client in
            // Noon in the user's zone five to one days ago.
            for (index, mealType) in ["breakfast", "lunch", "dinner", "snack", "lunch"].enumerated() {
                let eatenAt = TestToday.timestamp(day.noon(daysAgo: 5 - index))
                _ = try await client.createMeal(
                    extra: #","mealType":"\#(mealType)","eatenAt":"\#(eatenAt)","consumed":\#(index % 2 == 0)"#
                        + (index == 1 ? #","tags":["work"]"# : ""))
            }
            let sameInstant = TestToday.timestamp(day.time(daysAgo: 1, hour: 8, minute: 15).addingTimeInterval(30.123))
            for _ in 0..<3 { _ = try await client.createMeal(extra: #","mealType":"snack","eatenAt":"\#(sameInstant)""#) }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.call(.get, "/api/meals?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(page.status == .ok && page.list("meals").count <= 3)
                seen += page.list("meals").compactMap { $0["id"] as? String }
                cursor = page.json["nextCursor"] as? String
            } while cursor != nil
            #expect(seen.count == 8 && Set(seen).count == 8)
            #expect(try await client.call(.get, "/api/meals?status=consumed").list("meals").count == 3 + 3, "an entry is consumed unless it says not")
            #expect(try await client.call(.get, "/api/meals?status=scanned").list("meals").count == 2)
            #expect(try await client.call(.get, "/api/meals?mealType=lunch").list("meals").count == 2)
            #expect(try await client.call(.get, "/api/meals?tag=Work").list("meals").count == 1)
            let range = try await client.call(.get, "/api/meals?from=\(day.date(daysAgo: 4))&to=\(day.date(daysAgo: 3))").list("meals")
            #expect(range.map { $0["localDate"] as? String } == [day.date(daysAgo: 3), day.date(daysAgo: 4)])
            let yesterday = try await client.call(.get, "/api/meals?from=\(day.date(daysAgo: 1))&to=\(day.date(daysAgo: 1))").list("meals")
            #expect(yesterday.count == 4, "yesterday's noon and the three at 08:15 there")
            let badCursor = try await client.call(.get, "/api/meals?cursor=garbage")
            #expect(badCursor.status == .unprocessableContent && badCursor.errorCode == "invalid_cursor")
            let badFilters = try await client.call(.get, "/api/meals?status=eaten&limit=0&from=March&mealType=brunch")
            #expect(badFilters.status == .unprocessableContent)
            for field in ["status", "limit", "from", "mealType"] { #expect(badFilters.details[field] != nil, "\(field) is not named") }
        }
    }

    @Test(
        "a meal is dated with the caller's profile: its local day in the user's zone, today's when no time is sent",
        arguments: TestToday.variety)
    func callersProfile(day: TestToday) async throws {
        let harness = MealsRouterHarness(today: day)
        // A quarter past midnight today in the user's zone: UTC's date of that instant may be another.
        let earlyToday = day.time(daysAgo: 0, hour: 0, minute: 15)
        try await harness.withRoutes { client in
            let undated = try await client.createMeal()
            #expect(undated.json["localDate"] as? String == day.date, "now, in the user's zone")
            let early = try await client.createMeal(extra: #","eatenAt":"\#(TestToday.timestamp(earlyToday))""#)
            #expect(early.json["localDate"] as? String == day.date)
            let strangers = try await client.createMeal(extra: #","eatenAt":"\#(TestToday.timestamp(earlyToday))""#, as: harness.stranger)
            #expect(strangers.json["localDate"] as? String == TestToday.date(of: earlyToday, in: TimeZone(identifier: "UTC")!), "UTC's date")
        }
    }

    @Test("a request without the gateway's identity headers is 401 on every meal route")
    func withoutIdentity() async throws {
        try await harness.withRoutes { client in
            for (method, uri) in [
                (HTTPRequest.Method.get, "/api/meals"), (.post, "/api/meals"), (.get, "/api/meals/\(UUID())"), (.get, "/api/custom-meals"),
                (.get, "/api/sync/meals/changes"), (.post, "/api/sync/meals/import"),
            ] {
                let answer = try await client.client.execute(uri: uri, method: method, headers: [:], body: nil)
                #expect(answer.status == .unauthorized, "\(method) \(uri) answered \(answer.status)")
            }
        }
    }
}
