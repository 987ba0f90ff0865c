import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

/// The meal lifecycle through the gateway on the real database and broker: isolation, consumption and its events, lists
/// (their cursors compare PostgreSQL's microseconds), purge. Edits, versions, refusals and custom meals are tested at the
/// router (`MealRoutesTests`, `CustomMealRoutesTests`).
@Suite("Meal lifecycle through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct MealLifecycleTests {
    @Test("another user's meal answers 404 on every route")
    func isolation() async throws {
        try await MealsStack.run { stack in
            let (owner, _) = try await stack.signUp("owner")
            let (stranger, _) = try await stack.signUp("stranger")
            let meal = try await stack.analyze("an apple", token: owner)
            let path = "/api/meals/\(meal.id.uuidString.lowercased())"
            let attempts: [(HTTPRequest.Method, String, String?)] = [
                (.get, path, nil), (.put, path, #"{"notes":"mine now"}"#), (.delete, path, nil),
                (.post, path + "/consume", "{}"), (.delete, path + "/consume", nil), (.get, path + "/photo", nil),
            ]
            for (method, uri, json) in attempts {
                let response = try await stack.gateway.call(method, uri, json: json, token: stranger)
                #expect(response.status == .notFound, "\(method) \(uri) answered \(response.status) to a stranger")
            }
            let list = try await stack.gateway.call(.get, "/api/meals", token: stranger)
            #expect(try list.decoded(MealPage.self).meals.isEmpty)
            let still = try await stack.gateway.call(.get, path, token: owner)
            let ownersMeal = try still.decoded(MealAnswer.self)
            #expect(still.status == .ok && ownersMeal.notes == nil)
        }
    }

    @Test("consuming publishes meal.consumed with the full state; an edit republishes it; unconsuming sends meal.deleted")
    func consumptionEvents() async throws {
        try await MealsStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let meal = try await stack.analyze("a banana", token: token)
            let path = "/api/meals/\(meal.id.uuidString.lowercased())"
            let consumed = try await stack.gateway.call(.post, path + "/consume", json: #"{"notes":"post-run","mealType":"snack"}"#, token: token)
            let consumedMeal = try consumed.decoded(MealAnswer.self)
            #expect(consumed.status == .ok && consumedMeal.isConsumed && consumedMeal.notes == "post-run" && consumedMeal.mealType == "snack")
            _ = try await stack.gateway.call(.put, path, json: #"{"items":[{"foodId":"09040","grams":200}]}"#, token: token)
            let unconsumed = try await stack.gateway.call(.delete, path + "/consume", token: token)
            #expect(try unconsumed.decoded(MealAnswer.self).isConsumed == false)

            // The marker: a second meal analysed, consumed and unconsumed after all that, whose events follow the first
            // meal's on each topic; every copy of the first meal's events published before them is counted.
            let marker = try await stack.analyze("an apple", token: token)
            let markerPath = "/api/meals/\(marker.id.uuidString.lowercased())"
            #expect(try await stack.gateway.call(.post, markerPath + "/consume", json: "{}", token: token).status == .ok)
            #expect(try await stack.gateway.call(.delete, markerPath + "/consume", token: token).status == .ok)
            let subject = userId.uuidString.lowercased()
            let consumedEvents = try await publishedEvents(
                subject: subject, topic: .mealConsumed,
                upTo: .marker { (try? EventCoding.decode(MealConsumed.self, from: $0).data.meal.mealId) == marker.id }
            )
            .map { try EventCoding.decode(MealConsumed.self, from: $0).data.meal }
            #expect(consumedEvents.map(\.version) == [2, 3], "consume (v2) and the edit (v3)")
            #expect(consumedEvents.last?.items.first?.grams == 200 && consumedEvents.last?.notes == "post-run")
            #expect(consumedEvents.allSatisfy { $0.isConsumed && $0.mealId == meal.id && $0.timeZone == "UTC" })
            let deleted = try await publishedEvents(
                subject: subject, topic: .mealDeleted,
                upTo: .marker { (try? EventCoding.decode(MealDeleted.self, from: $0).data.mealId) == marker.id }
            )
            .map { try EventCoding.decode(MealDeleted.self, from: $0).data }
            #expect(deleted.map(\.reason) == ["unconsumed"] && deleted.first?.version == 4)
            let analyzed = try await publishedEvents(
                subject: subject, topic: .mealAnalyzed,
                upTo: .marker { (try? EventCoding.decode(MealAnalyzed.self, from: $0).data.meal.mealId) == marker.id }
            )
            .map { try EventCoding.decode(MealAnalyzed.self, from: $0).data.meal }
            #expect(analyzed.map(\.version) == [1, 4] && analyzed.last?.isConsumed == false)
        }
    }

    @Test("lists page with a cursor and filter by status, meal type and the user's dates")
    func listing() async throws {
        try await MealsStack.run { stack in
            let (token, _) = try await stack.signUp()
            for (index, mealType) in ["breakfast", "lunch", "dinner", "snack", "lunch"].enumerated() {
                let eatenAt = "2026-03-0\(index + 1)T12:00:00Z"
                let entry =
                    #"{"items":[{"foodId":"09040","grams":100}],"mealType":"\#(mealType)","eatenAt":"\#(eatenAt)","consumed":\#(index % 2 == 0)}"#
                let created = try await stack.gateway.call(.post, "/api/meals", json: entry, token: token)
                #expect(created.status == .created)
            }
            // Three meals at the same fractional instant: a cursor between them must neither skip nor repeat one.
            for _ in 0..<3 {
                let entry = #"{"items":[{"foodId":"09040","grams":100}],"mealType":"snack","eatenAt":"2026-03-06T08:15:30.123Z"}"#
                #expect(try await stack.gateway.call(.post, "/api/meals", json: entry, token: token).status == .created)
            }
            var seen: [UUID] = []
            var cursor: String?
            repeat {
                let response = try await stack.gateway.call(.get, "/api/meals?limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                let page = try response.decoded(MealPage.self)
                #expect(page.meals.count <= 1)
                seen += page.meals.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 8 && Set(seen).count == 8)
            let consumed = try await stack.gateway.call(.get, "/api/meals?status=consumed", token: token).decoded(MealPage.self)
            #expect(consumed.meals.count == 3 + 3 && consumed.meals.allSatisfy(\.isConsumed))
            let lunches = try await stack.gateway.call(.get, "/api/meals?mealType=lunch", token: token).decoded(MealPage.self)
            #expect(lunches.meals.count == 2)
            let range = try await stack.gateway.call(.get, "/api/meals?from=2026-03-02&to=2026-03-03", token: token).decoded(MealPage.self)
            #expect(range.meals.map(\.localDate) == ["2026-03-03", "2026-03-02"])
            let badCursor = try await stack.gateway.call(.get, "/api/meals?cursor=garbage", token: token)
            #expect(badCursor.status == .unprocessableContent && badCursor.errorCode == "invalid_cursor")
            let badFilter = try await stack.gateway.call(.get, "/api/meals?status=eaten&limit=0", token: token)
            #expect(badFilter.status == .unprocessableContent)
        }
    }

    @Test("user.deleted purges every meal and custom meal of that user, and only theirs")
    func purge() async throws {
        try await MealsStack.run { stack in
            let email = "leaving-\(UUID().uuidString.prefix(8))@example.com"
            let leaving = try await stack.gateway.register(email: email)
            let (staying, stayingId) = try await stack.signUp("staying")
            _ = try await stack.analyze("2 eggs and toast", token: leaving.accessToken)
            _ = try await stack.analyze("an apple", token: staying)
            let saved = try await stack.gateway.call(
                .post, "/api/custom-meals", json: #"{"name":"x","items":[{"foodId":"09040","grams":100}]}"#, token: leaving.accessToken)
            #expect(saved.status == .created)
            func customMeals(of userId: UUID) async throws -> Int {
                try await stack.mealsDatabase.query("SELECT count(*) FROM custom_meals WHERE user_id = \(userId)", logger: TestEnvironment.logger)
                    .decode(Int.self).first { _ in true } ?? 0
            }
            #expect(try await stack.storedMeals(of: leaving.user.id) == 1, "the meal is there before")
            #expect(try await customMeals(of: leaving.user.id) == 1, "the custom meal is there before")
            #expect(try await stack.storedMeals(of: stayingId) == 1)
            let gone = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: leaving.accessToken)
            #expect(gone.status == .noContent)
            let purged = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                let meals = try await stack.storedMeals(of: leaving.user.id)
                let custom = try await customMeals(of: leaving.user.id)
                return meals == 0 && custom == 0
            }
            #expect(purged, "the leaving user's meals were not purged")
            #expect(try await stack.storedMeals(of: stayingId) == 1)
        }
    }
}

/// A page of meals as answered.
struct MealPage: Decodable {
    var meals: [MealAnswer]
    var nextCursor: String?
}
