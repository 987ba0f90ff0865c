import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

/// Offline-first sync of meals through the gateway: client-chosen ids, safe replays, the changes feed with tombstones,
/// last-write-wins with recorded conflicts.
@Suite("Meals sync through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct MealsSyncTests {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    /// The parts of a feed page the tests read.
    struct FeedPage: Decodable {
        struct Change: Decodable {
            var seq: Int64
            var type: String
            var id: String
            var version: Int
            var deleted: Bool
        }
        var changes: [Change]
        var nextCursor: String
        var hasMore: Bool
    }

    /// The parts of a write answer the tests read.
    struct WriteAnswer: Decodable {
        var id: String
        var version: Int
        var notes: String?
        var deleted: Bool?
        var conflict: String?
    }

    @Test("a meal created with the client's id by PUT, replayed, edited by two devices and deleted shows in the feed in order")
    func clientIdsFeedAndConflicts() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp("sync")
            let id = UUID().uuidString.lowercased()
            let path = "/api/meals/\(id)"
            let entry = #"{"items":[{"foodId":"01123","grams":100}],"modifiedAt":"2026-09-21T08:00:00.000Z"}"#
            let created = try await stack.gateway.call(.put, path, json: entry, token: token)
            #expect(created.status == .created, "PUT of a new id answered \(created.status): \(String(buffer: created.body))")
            let replay = try await stack.gateway.call(.put, path, json: entry, token: token)
            let replayVersion = try replay.decoded(WriteAnswer.self).version
            #expect(replay.status == .ok && replayVersion == 1, "a replayed create changes nothing")

            let full = try await stack.gateway.call(.get, "/api/sync/meals/changes?since=0", token: token)
            let first = try full.decoded(FeedPage.self)
            #expect(full.status == .ok && first.changes.map(\.id) == [id] && !first.hasMore)

            // Device B's edit is newer than device A's, but A's arrives last: B's stays, A's is recorded as a conflict.
            let newer = try await stack.gateway.call(
                .put, path, json: #"{"notes":"from B","modifiedAt":"2026-09-21T10:00:00.000Z"}"#, token: token)
            #expect(try newer.decoded(WriteAnswer.self).notes == "from B")
            let older = try await stack.gateway.call(
                .put, path, json: #"{"notes":"from A","modifiedAt":"2026-09-21T09:00:00.000Z"}"#, token: token)
            let kept = try older.decoded(WriteAnswer.self)
            #expect(older.status == .ok && kept.conflict == "stale_write_ignored" && kept.notes == "from B" && kept.version == 2)

            let afterEdit = try await stack.gateway.call(.get, "/api/sync/meals/changes?since=\(first.nextCursor)", token: token)
            let edits = try afterEdit.decoded(FeedPage.self)
            #expect(edits.changes.map(\.version) == [2], "one change since the cursor: the applied edit, not the ignored one")

            let deleted = try await stack.gateway.call(.delete, path, token: token)
            #expect(deleted.status == .noContent)
            let again = try await stack.gateway.call(.delete, path, token: token)
            #expect(again.status == .noContent, "deleting again is a replay, not an error")
            let lateEdit = try await stack.gateway.call(
                .put, path, json: #"{"notes":"too late","modifiedAt":"2026-09-22T10:00:00.000Z"}"#, token: token)
            let tombstone = try lateEdit.decoded(WriteAnswer.self)
            #expect(lateEdit.status == .ok && tombstone.deleted == true && tombstone.conflict == "deletion_preserved")

            let afterDelete = try await stack.gateway.call(.get, "/api/sync/meals/changes?since=\(edits.nextCursor)", token: token)
            let tombstones = try afterDelete.decoded(FeedPage.self)
            #expect(tombstones.changes.count == 1 && tombstones.changes[0].deleted && tombstones.changes[0].version == 3)

            let conflicts = try await stack.gateway.call(.get, "/api/sync/meals/conflicts", token: token)
            let resolutions = try #require(
                (try JSONSerialization.jsonObject(with: Data(buffer: conflicts.body)) as? [String: Any])?["conflicts"] as? [[String: Any]])
            // Both were resolved at the same (test) instant, so their order is the ids'; compare as a set.
            #expect(Set(resolutions.compactMap { $0["resolution"] as? String }) == ["deletion_preserved", "stale_write_ignored"])
        }
    }

    @Test("pages of the feed hold every change once, in commit order, and a bad cursor is 400")
    func paging() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp("paging")
            for index in 0..<5 {
                let response = try await stack.gateway.call(
                    .post, "/api/meals", json: #"{"items":[{"foodId":"01123","grams":\#(50 + index)}]}"#, token: token)
                #expect(response.status == .created)
            }
            var cursor = "0"
            var seen: [Int64] = []
            var pages = 0
            while pages < 10 {
                let page = try (try await stack.gateway.call(.get, "/api/sync/meals/changes?since=\(cursor)&limit=2", token: token))
                    .decoded(FeedPage.self)
                seen += page.changes.map(\.seq)
                cursor = page.nextCursor
                pages += 1
                if !page.hasMore { break }
            }
            #expect(seen.count == 5 && seen == seen.sorted() && Set(seen).count == 5)
            let bad = try await stack.gateway.call(.get, "/api/sync/meals/changes?since=abc", token: token)
            #expect(bad.status == .unprocessableContent && bad.errorCode == "invalid_cursor")
        }
    }

    @Test("an Idempotency-Key replay answers the first answer and creates once; another body with the key is 422")
    func idempotentCreates() async throws {
        try await MealsStack.run { stack in
            let (token, userId) = try await stack.signUp("replay")
            let key = UUID().uuidString
            let body = #"{"items":[{"foodId":"01123","grams":80}]}"#
            let first = try await stack.gateway.call(.post, "/api/meals", json: body, token: token, headers: [Self.idempotencyKey: key])
            let second = try await stack.gateway.call(.post, "/api/meals", json: body, token: token, headers: [Self.idempotencyKey: key])
            #expect(first.status == .created && second.status == .created)
            #expect(second.headers[Self.replayed] == "true" && first.headers[Self.replayed] != "true")
            let firstId = try first.decoded(WriteAnswer.self).id
            let secondId = try second.decoded(WriteAnswer.self).id
            #expect(firstId == secondId)
            #expect(try await stack.storedMeals(of: userId) == 1)
            let other = try await stack.gateway.call(
                .post, "/api/meals", json: #"{"items":[{"foodId":"01123","grams":81}]}"#, token: token, headers: [Self.idempotencyKey: key])
            #expect(other.status == .unprocessableContent && other.errorCode == "idempotency_key_reused")

            let analyzeKey = UUID().uuidString
            let analysis = #"{"text":"an apple"}"#
            let analyzed = try await stack.gateway.call(
                .post, "/api/analyze", json: analysis, token: token, headers: [Self.idempotencyKey: analyzeKey])
            let replayed = try await stack.gateway.call(
                .post, "/api/analyze", json: analysis, token: token, headers: [Self.idempotencyKey: analyzeKey])
            let analyzedId = try analyzed.decoded(WriteAnswer.self).id
            let replayedId = try replayed.decoded(WriteAnswer.self).id
            #expect(analyzedId == replayedId && replayed.headers[Self.replayed] == "true")
            #expect(try await stack.storedMeals(of: userId) == 2)
        }
    }

    @Test("a latest write that changes nothing still wins: an older write arriving after it is stale")
    func noOpWriteKeepsItsStamp() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp("noop")
            let id = UUID().uuidString.lowercased()
            let entry = #"{"items":[{"foodId":"01123","grams":100}],"consumed":false,"modifiedAt":"2026-09-21T08:00:00.000Z"}"#
            #expect(try await stack.gateway.call(.put, "/api/meals/\(id)", json: entry, token: token).status == .created)
            // Device C un-eats the scanned meal at 10:00 (nothing to change); device D's older 09:00 "eaten" arrives later.
            let unconsumed = try await stack.gateway.call(.delete, "/api/meals/\(id)/consume?modifiedAt=2026-09-21T10:00:00.000Z", token: token)
            let unchanged = try unconsumed.decoded(WriteAnswer.self)
            #expect(unconsumed.status == .ok && unchanged.version == 1)
            let consumed = try await stack.gateway.call(
                .post, "/api/meals/\(id)/consume", json: #"{"modifiedAt":"2026-09-21T09:00:00.000Z"}"#, token: token)
            let answer = try consumed.decoded(WriteAnswer.self)
            #expect(consumed.status == .ok && answer.conflict == "stale_write_ignored" && answer.version == 1)
        }
    }

    @Test("a deleted custom meal stays deleted: deleting again is 204, a later write answers its tombstone, If-Match 404")
    func deletedCustomMeal() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp("custom")
            let body = #"{"name":"Usual lunch","items":[{"foodId":"01123","grams":100}]}"#
            let created = try await stack.gateway.call(.post, "/api/custom-meals", json: body, token: token)
            #expect(created.status == .created)
            let id = try created.decoded(WriteAnswer.self).id.lowercased()
            for _ in 0..<2 { #expect(try await stack.gateway.call(.delete, "/api/custom-meals/\(id)", token: token).status == .noContent) }

            let edit = #"{"name":"Usual dinner","items":[{"foodId":"01123","grams":100}],"modifiedAt":"2026-09-21T10:00:00.000Z"}"#
            let late = try await stack.gateway.call(.put, "/api/custom-meals/\(id)", json: edit, token: token)
            let tombstone = try late.decoded(WriteAnswer.self)
            #expect(late.status == .ok && tombstone.deleted == true && tombstone.conflict == "deletion_preserved")
            let strict = try await stack.gateway.call(.put, "/api/custom-meals/\(id)", json: edit, token: token, headers: [.ifMatch: "\"1\""])
            #expect(strict.status == .notFound)
            let missing = try await stack.gateway.call(.delete, "/api/custom-meals/\(UUID().uuidString)", token: token)
            #expect(missing.status == .notFound)

            let feed = try (try await stack.gateway.call(.get, "/api/sync/meals/changes", token: token)).decoded(FeedPage.self)
            #expect(feed.changes.map(\.type) == ["custom_meal"] && feed.changes.map(\.deleted) == [true] && feed.changes.map(\.id) == [id])
        }
    }
}
