import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import SyncContracts
import Testing

@testable import TrendsService

/// Water (issue 33, item 9) and CountMe's whole migration (item 4) through the gateway on the whole stack: water
/// entries summed per day against the profile's goal in trends, in the changes feed with tombstones and on
/// `water.logged`; custom meals created by `PUT` under the client's id; one import of every kind of item, repeated.
@Suite("Water and the whole import through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct WaterAndImportJourneyTests {
    /// 2026-03-10 12:00 UTC: the clock of these journeys.
    static let start = Date(timeIntervalSince1970: 1_773_144_000)

    /// The parts of `GET /api/metrics/water` the journeys read.
    struct WaterDays: Decodable {
        struct Day: Decodable {
            struct Entry: Decodable {
                var id: String
                var millilitres: Int
            }

            var date: String
            var totalMillilitres: Int
            var entries: [Entry]
        }

        var entries: [Day]
    }

    /// The parts of a custom meal write answer the journeys read.
    struct CustomMealAnswer: Decodable {
        var id: String
        var name: String
        var version: Int
        var conflict: String?
    }

    /// A water entry as a device sends it.
    static func water(_ id: String, millilitres: Int, date: String = "2026-03-10", modifiedAt: String) -> String {
        #"{"id":"\#(id)","date":"\#(date)","millilitres":\#(millilitres),"modifiedAt":"\#(modifiedAt)"}"#
    }

    /// A custom meal of one free-value item of `calories`, as a device sends it.
    static func customMeal(name: String, calories: Double, modifiedAt: String, id: String? = nil) -> String {
        let id = id.map { #""id":"\#($0)","# } ?? ""
        return #"{\#(id)"name":"\#(name)","items":[\#(TrendsPipelineTests.item(calories: calories))],"modifiedAt":"\#(modifiedAt)"}"#
    }

    @Test(
        "two water entries of a day add up against the profile's water goal in the day summary, sync with a tombstone when one is removed, and publish water.logged"
    )
    func waterAgainstGoal() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Gil", form: .emailAndPasswordOnly)
            try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"dailyWaterGoalMillilitres":2000}"#, token: user.token)
            let morning = UUID().uuidString.lowercased()
            let noon = UUID().uuidString.lowercased()
            try await stack.expect(
                .created, .post, "/api/metrics/water", json: Self.water(morning, millilitres: 1500, modifiedAt: "2026-03-10T08:00:00Z"),
                token: user.token)
            try await stack.expect(
                .created, .post, "/api/metrics/water", json: Self.water(noon, millilitres: 750, modifiedAt: "2026-03-10T11:00:00Z"),
                token: user.token)

            let listed = try await stack.expect(.ok, .get, "/api/metrics/water?days=7", token: user.token).decoded(WaterDays.self)
            #expect(listed.entries.map(\.date) == ["2026-03-10"] && listed.entries.first?.totalMillilitres == 2250)
            #expect(Set(listed.entries.first?.entries.map { $0.id.lowercased() } ?? []) == [morning, noon])

            let reached = try await stack.gateway.eventually("/api/history/2026-03-10", token: user.token, as: DayHistory.self) {
                $0.summary.waterMillilitres == 2250 && $0.summary.waterGoalMillilitres == 2000
            }
            #expect(reached.summary.waterMillilitres == 2250 && reached.summary.waterGoalMillilitres == 2000)
            #expect(reached.summary.waterGoalMet == true, "2250 ml of a 2000 ml goal is not shown as met")

            var device = DeviceReplica()
            try await device.sync(through: stack.gateway, token: user.token)
            let synced = device.all("water_entry")
            #expect(Set(synced.keys) == [morning, noon], "the feed holds water entries \(synced.keys.sorted())")
            #expect(synced[noon]?.data["millilitres"] == .number(750) && synced[noon]?.data["date"] == .string("2026-03-10"))

            try await stack.expect(.noContent, .delete, "/api/metrics/water/\(noon)?modifiedAt=2026-03-10T11:30:00Z", token: user.token)
            let page = try await stack.expect(.ok, .get, "/api/sync/changes?since=\(device.cursor)", token: user.token)
                .decoded(DeviceReplica.Page.self)
            let tombstones = page.changes.filter { $0.type == "water_entry" }
            #expect(tombstones.map(\.id) == [noon] && tombstones.map(\.deleted) == [true], "after the removal the feed sent \(tombstones)")
            #expect(tombstones.first?.data == nil)
            try await device.sync(through: stack.gateway, token: user.token)
            #expect(Array(device.all("water_entry").keys) == [morning])

            let short = try await stack.gateway.eventually("/api/history/2026-03-10", token: user.token, as: DayHistory.self) {
                $0.summary.waterMillilitres == 1500
            }
            #expect(short.summary.waterMillilitres == 1500 && short.summary.waterGoalMet == false, "the removed 750 ml still count")
            try await stack.checkEvents(of: [user.id], covering: [.waterLogged])
        }
    }

    @Test(
        "PUT /api/custom-meals/{id} creates under the client's id (201, Location, ETag); a newer modifiedAt updates it, an older one is ignored as a stale write"
    )
    func customMealUnderClientId() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Hal", form: .emailAndPasswordOnly)
            let id = UUID().uuidString.lowercased()
            let path = "/api/custom-meals/\(id)"
            let creation = try await stack.expect(
                .created, .put, path, json: Self.customMeal(name: "Usual lunch", calories: 500, modifiedAt: "2026-03-10T08:00:00Z"),
                token: user.token)
            let created = try creation.decoded(CustomMealAnswer.self)
            #expect(created.id.lowercased() == id && created.version == 1 && created.name == "Usual lunch")
            #expect(creation.headers[.location] == path && creation.headers[.eTag] == #""1""#, "created as meals are: Location and ETag")

            let update = try await stack.expect(
                .ok, .put, path, json: Self.customMeal(name: "Bigger lunch", calories: 700, modifiedAt: "2026-03-10T09:00:00Z"),
                token: user.token)
            let updated = try update.decoded(CustomMealAnswer.self)
            #expect(updated.name == "Bigger lunch" && updated.version == 2 && updated.conflict == nil)
            #expect(update.headers[.eTag] == #""2""#, "the new version, for If-Match")

            let stale = try await stack.expect(
                .ok, .put, path, json: Self.customMeal(name: "Old lunch", calories: 300, modifiedAt: "2026-03-10T08:30:00Z"),
                token: user.token
            ).decoded(CustomMealAnswer.self)
            #expect(stale.conflict == "stale_write_ignored" && stale.name == "Bigger lunch" && stale.version == 2)

            let stored = try await stack.expect(.ok, .get, path, token: user.token).decoded(CustomMealAnswer.self)
            #expect(stored.name == "Bigger lunch" && stored.version == 2, "the stale write changed the custom meal")
            var device = DeviceReplica()
            try await device.sync(through: stack.gateway, token: user.token)
            #expect(Array(device.all("custom_meal").keys) == [id] && device.all("custom_meal")[id]?.version == 2)
        }
    }

    @Test(
        "one import of meals, custom meals, weigh-ins, ketone levels and water answers each item; the same import again is all already present and duplicates nothing"
    )
    func wholeImport() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Ida", form: .emailAndPasswordOnly)
            let meal = UUID().uuidString.lowercased()
            let custom = UUID().uuidString.lowercased()
            let glass = UUID().uuidString.lowercased()
            let bottle = UUID().uuidString.lowercased()
            let meals = [
                OfflineSyncJourneyTests.meal(
                    calories: 600, eatenAt: "2026-03-09T12:00:00Z", modifiedAt: "2026-03-09T12:05:00Z", extra: #","id":"\#(meal)""#)
            ]
            let customMeals = [
                Self.customMeal(name: "Usual lunch", calories: 500, modifiedAt: "2026-03-09T08:00:00Z", id: custom),
                Self.customMeal(name: "No id", calories: 500, modifiedAt: "2026-03-09T08:00:00Z"),
            ]
            let weighIns = [#"{"date":"2026-03-09","weight":81.2,"modifiedAt":"2026-03-09T07:00:00Z"}"#]
            let ketones = [#"{"date":"2026-03-09","level":1.4,"modifiedAt":"2026-03-09T07:05:00Z"}"#, #"{"date":"2026-03-08","level":"high"}"#]
            let water = [
                Self.water(glass, millilitres: 250, date: "2026-03-09", modifiedAt: "2026-03-09T09:00:00Z"),
                Self.water(bottle, millilitres: 500, date: "2026-03-09", modifiedAt: "2026-03-09T13:00:00Z"),
                Self.water(UUID().uuidString, millilitres: 20_000, date: "2026-03-09", modifiedAt: "2026-03-09T14:00:00Z"),
                #"{"date":"2026-03-09","millilitres":300}"#,
            ]
            let body = """
                {"meals":[\(meals.joined(separator: ","))],"customMeals":[\(customMeals.joined(separator: ","))],\
                "weighIns":[\(weighIns.joined(separator: ","))],"ketones":[\(ketones.joined(separator: ","))],\
                "water":[\(water.joined(separator: ","))]}
                """

            let first = try await stack.expect(.ok, .post, "/api/sync/import", json: body, token: user.token).decoded(SyncImportResponse.self)
            #expect(
                first.results.map(\.type) == [
                    "meal", "custom_meal", "custom_meal", "weigh_in", "ketones", "ketones", "water_entry", "water_entry", "water_entry",
                    "water_entry",
                ])
            #expect(
                first.results.map(\.status) == [
                    .created, .created, .rejected, .created, .created, .rejected, .created, .created, .rejected, .rejected,
                ])
            #expect(Array(first.results.map { $0.id.lowercased() }.prefix(2)) == [meal, custom] && first.results[6].id.lowercased() == glass)
            #expect(first.results[2].error?.details["id"] != nil, "a custom meal without an id: \(String(describing: first.results[2].error))")
            #expect(first.results[5].error?.code == "validation_failed")
            #expect(first.results[8].error?.details["millilitres"] != nil && first.results[9].error?.details["id"] != nil)
            #expect(first.summary == .init(created: 6, alreadyPresent: 0, rejected: 4))

            let again = try await stack.expect(.ok, .post, "/api/sync/import", json: body, token: user.token).decoded(SyncImportResponse.self)
            #expect(
                again.results.map(\.status) == [
                    .alreadyPresent, .alreadyPresent, .rejected, .alreadyPresent, .alreadyPresent, .rejected, .alreadyPresent, .alreadyPresent,
                    .rejected, .rejected,
                ], "the repeated import answered \(again.results)")
            #expect(again.summary == .init(created: 0, alreadyPresent: 6, rejected: 4))

            var device = DeviceReplica()
            try await device.sync(through: stack.gateway, token: user.token)
            #expect(Array(device.all("meal").keys) == [meal] && Array(device.all("custom_meal").keys) == [custom])
            #expect(Set(device.all("water_entry").keys) == [glass, bottle])
            #expect(device.all("water_entry").values.allSatisfy { $0.version == 1 }, "the repeated import wrote water again")
            let day = try #require(device.all("body_metrics_day")["2026-03-09"])
            #expect(day.version == 2 && day.data["weightKg"] == .number(81.2) && day.data["ketones"] == .number(1.4))
            let waterDays = try await stack.expect(.ok, .get, "/api/metrics/water?days=7", token: user.token).decoded(WaterDays.self)
            #expect(waterDays.entries.map(\.totalMillilitres) == [750], "the day's water after two imports")
            let customList = try await stack.expect(.ok, .get, "/api/custom-meals", token: user.token)
            #expect(String(buffer: customList.body).components(separatedBy: "Usual lunch").count == 2, "one custom meal listed once")
        }
    }
}
