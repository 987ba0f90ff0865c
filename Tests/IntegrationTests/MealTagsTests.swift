import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// NutritionAI's meal tags through the gateway: set on create, edit and custom meals, filtered on, carried in events.
@Suite("Meal tags through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct MealTagsTests {
    /// The parts of a meal or custom meal answer these tests read.
    struct Tagged: Decodable {
        var id: String
        var tags: [String]
    }

    /// A page of the meal list.
    struct Page: Decodable {
        var meals: [Tagged]
    }

    static let item = TrendsPipelineTests.item(calories: 400)

    @Test("tags set on create are normalised, filter the list, are replaced by an edit, pass from a custom meal, and travel in the events")
    func tags() async throws {
        try await FullStack.run(start: OfflineSyncJourneyTests.start) { stack in
            let user = try await stack.signUp("Gil")
            let lunch = try await stack.expect(
                .created, .post, "/api/meals", json: #"{"items":[\#(Self.item)],"tags":[" Work Lunch","work lunch","High-Protein"]}"#,
                token: user.token
            ).decoded(Tagged.self)
            #expect(lunch.tags == ["work lunch", "high-protein"])
            let other = try await stack.expect(.created, .post, "/api/meals", json: #"{"items":[\#(Self.item)]}"#, token: user.token)
                .decoded(Tagged.self)
            #expect(other.tags == [])

            let filtered = try await stack.expect(.ok, .get, "/api/meals?tag=WORK%20LUNCH", token: user.token).decoded(Page.self)
            #expect(filtered.meals.map(\.id) == [lunch.id])
            let none = try await stack.expect(.ok, .get, "/api/meals?tag=dinner", token: user.token).decoded(Page.self)
            #expect(none.meals.isEmpty)
            let badFilter = try await stack.expect(.unprocessableContent, .get, "/api/meals?tag=", token: user.token)
            #expect(badFilter.errorCode == "validation_failed")

            let tooMany = #"{"tags":[\#((1...11).map { #""t\#($0)""# }.joined(separator: ","))]}"#
            let refused = try await stack.expect(.unprocessableContent, .put, "/api/meals/\(lunch.id)", json: tooMany, token: user.token)
            #expect(refused.errorCode == "validation_failed")
            let cleared = try await stack.expect(.ok, .put, "/api/meals/\(lunch.id)", json: #"{"tags":[]}"#, token: user.token)
                .decoded(Tagged.self)
            #expect(cleared.tags == [])

            let custom = try await stack.expect(
                .created, .post, "/api/custom-meals", json: #"{"name":"Usual","items":[\#(Self.item)],"tags":["Usual"]}"#, token: user.token
            ).decoded(Tagged.self)
            #expect(custom.tags == ["usual"])
            let logged = try await stack.expect(.created, .post, "/api/custom-meals/\(custom.id)/log", token: user.token).decoded(Tagged.self)
            #expect(logged.tags == ["usual"])

            // The consumed meal's event carries its tags (the journeys' tap reads every topic from the broker).
            let key = user.id.uuidString.lowercased()
            var carried: Set<[String]> = []
            _ = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                carried = Set(
                    stack.events.events(keyedBy: [key]).filter { $0.topic == Topic.mealConsumed.rawValue }.compactMap { event in
                        (try? EventCoding.decode(MealConsumed.self, from: event.value))?.data.meal.tags ?? nil
                    })
                return carried.contains(["usual"]) && carried.contains(["work lunch", "high-protein"])
            }
            #expect(carried.contains(["usual"]) && carried.contains(["work lunch", "high-protein"]), "tags in meal.consumed: \(carried)")
            try await stack.checkEvents(of: [user.id], covering: [.mealConsumed])
        }
    }
}
