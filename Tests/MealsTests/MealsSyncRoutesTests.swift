import Foundation
import HTTPTypes
import Testing

@testable import MealsService

/// The meals area of offline-first sync at the router: the changes feed (meals, custom meals and tombstones by change
/// number, in pages), its expired and bad cursors, the conflicts list, and the import of a device's store.
@Suite("Meals sync routes on an in-memory store")
struct MealsSyncRoutesTests {
    let harness = MealsRouterHarness()

    @Test("the feed holds each entity's latest state once, in change order, with tombstones; pages follow nextCursor to the end")
    func changesFeed() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal()
            let custom = try await client.call(.post, "/api/custom-meals", json: #"{"name":"Rice","items":[{"foodId":"20045","grams":150}]}"#)
            _ = try await client.call(.post, "/api/meals/\(meal.id)/consume")
            let gone = try await client.createMeal(grams: 50)
            #expect(try await client.call(.delete, "/api/meals/\(gone.id)").status == .noContent)
            _ = try await client.createMeal(as: harness.stranger)

            let all = try await client.call(.get, "/api/sync/meals/changes")
            let changes = all.list("changes")
            #expect(all.status == .ok && all.json["hasMore"] as? Bool == false)
            #expect(changes.map { $0["id"] as? String } == [custom.id, meal.id, gone.id], "the consumed meal moved after the custom meal")
            #expect(changes.map { $0["type"] as? String } == ["custom_meal", "meal", "meal"])
            #expect(changes.last?["deleted"] as? Bool == true)
            let seqs = changes.compactMap { ($0["seq"] as? NSNumber)?.int64Value }
            #expect(seqs == seqs.sorted() && all.json["nextCursor"] as? String == seqs.last.map(String.init))

            var seen: [String] = []
            var cursor = "0"
            var more = true
            while more {
                let page = try await client.call(.get, "/api/sync/meals/changes?since=\(cursor)&limit=1")
                seen += page.list("changes").compactMap { $0["id"] as? String }
                cursor = try #require(page.json["nextCursor"] as? String)
                more = page.json["hasMore"] as? Bool == true
            }
            #expect(seen == [custom.id, meal.id, gone.id])
            let after = try await client.call(.get, "/api/sync/meals/changes?since=\(cursor)")
            #expect(after.list("changes").isEmpty && after.json["nextCursor"] as? String == cursor, "nothing new: the cursor stays")
        }
    }

    @Test("feed refusals: a cursor this API did not make or a limit out of range is 422, a cursor older than the kept deletions 410")
    func feedRefusals() async throws {
        try await harness.withRoutes { client in
            let bad = try await client.call(.get, "/api/sync/meals/changes?since=yesterday")
            #expect(bad.status == .unprocessableContent && bad.errorCode == "invalid_cursor" && bad.details["cursor"] != nil)
            #expect(try await client.call(.get, "/api/sync/meals/changes?limit=501").status == .unprocessableContent)
            harness.store.expire(userId: harness.owner, through: 10)
            let expired = try await client.call(.get, "/api/sync/meals/changes?since=3")
            #expect(expired.status == .gone && expired.errorCode == "sync_cursor_expired")
            #expect(try await client.call(.get, "/api/sync/meals/changes?since=0").status == .ok, "starting again works")
            #expect(try await client.call(.get, "/api/sync/meals/conflicts?limit=0").status == .unprocessableContent)
            #expect(try await client.call(.get, "/api/sync/meals/conflicts?cursor=garbage").status == .unprocessableContent)
        }
    }

    @Test("conflicts are listed newest first in pages: a stale edit, a write of a deleted meal, and a deletion over a newer edit")
    func conflicts() async throws {
        try await harness.withRoutes { client in
            let meal = try await client.createMeal(extra: #","modifiedAt":"2026-05-10T11:00:00Z""#)
            let path = "/api/meals/\(meal.id)"
            _ = try await client.call(.put, path, json: #"{"notes":"stale","modifiedAt":"2026-05-10T10:00:00Z"}"#)
            harness.advance(seconds: 1)
            #expect(try await client.call(.delete, path + "?modifiedAt=2026-05-10T10:30:00Z").status == .noContent)
            harness.advance(seconds: 1)
            _ = try await client.call(.put, path, json: #"{"notes":"after deletion"}"#)
            let all = try await client.call(.get, "/api/sync/meals/conflicts")
            #expect(
                all.list("conflicts").map { $0["resolution"] as? String } == ["deletion_preserved", "deletion_overrode_edit", "stale_write_ignored"])
            #expect(all.list("conflicts").allSatisfy { $0["entityId"] as? String == meal.id })
            let first = try await client.call(.get, "/api/sync/meals/conflicts?limit=2")
            let cursor = try #require(first.json["nextCursor"] as? String)
            let rest = try await client.call(.get, "/api/sync/meals/conflicts?limit=2&cursor=\(cursor)")
            #expect(rest.list("conflicts").map { $0["resolution"] as? String } == ["stale_write_ignored"] && rest.json["nextCursor"] == nil)
            #expect(try await client.call(.get, "/api/sync/meals/conflicts", as: harness.stranger).list("conflicts").isEmpty)
        }
    }

    @Test("an import answers each item in order: created, then already present on replay; a bad item is rejected alone; 1 to 500 items")
    func importStore() async throws {
        try await harness.withRoutes { client in
            let mealId = UUID().uuidString, customId = UUID().uuidString.lowercased()
            let body =
                #"{"meals":[{"id":"\#(mealId)","items":[{"foodId":"09040","grams":120}],"eatenAt":"2026-05-09T08:00:00Z","consumed":true},"#
                + #"{"id":"not-a-uuid","items":[]},{"id":"\#(UUID())","items":[{"foodId":"nope"}]}],"#
                + #""customMeals":[{"id":"\#(customId)","name":"Rice bowl","items":[{"foodId":"20045","grams":200}]}]}"#
            let first = try await client.call(.post, "/api/sync/meals/import", json: body)
            let results = first.list("results")
            #expect(first.status == .ok && results.map { $0["status"] as? String } == ["created", "rejected", "rejected", "created"])
            #expect(results.first?["id"] as? String == mealId.lowercased(), "ids are answered in lower case")
            #expect(((results[2]["error"] as? [String: Any])?["details"] as? [String: Any])?["items[0].foodId"] != nil)
            let summary = try #require(first.json["summary"] as? [String: Any])
            #expect(summary["created"] as? Int == 2 && summary["rejected"] as? Int == 2)
            let replay = try await client.call(.post, "/api/sync/meals/import", json: body)
            #expect(replay.list("results").map { $0["status"] as? String } == ["already_present", "rejected", "rejected", "already_present"])
            #expect(harness.store.allMeals.count == 1)
            let imported = try await client.call(.get, "/api/meals/\(mealId.lowercased())")
            #expect(imported.json["isConsumed"] as? Bool == true && imported.json["localDate"] as? String == "2026-05-09")

            let stolen = try await client.call(
                .post, "/api/sync/meals/import", json: #"{"meals":[{"id":"\#(mealId)","items":[{"foodId":"09040","grams":1}]}]}"#,
                as: harness.stranger)
            #expect(stolen.list("results").first?["status"] as? String == "rejected", "another user's id is not theirs")
            let empty = try await client.call(.post, "/api/sync/meals/import", json: #"{"meals":[]}"#)
            #expect(empty.status == .unprocessableContent && empty.details["meals"] != nil)
        }
    }
}
