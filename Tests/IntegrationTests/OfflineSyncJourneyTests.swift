import BackendKit
import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresSupport
import SyncContracts
import Testing

@testable import MealsService
@testable import MetricsService
@testable import TrendsService

/// CountMe (003, requirements 6-10) as an offline-first app uses the whole stack through the gateway with the shipped
/// route table: two devices that edit offline and replay their queues, a device's local store moved into a new
/// account, and a history kept for a limited number of days.
@Suite("Offline-first sync journeys (CountMe)", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct OfflineSyncJourneyTests {
    /// 2026-03-10 12:00 UTC: the clock of these journeys; the devices' edits were made earlier that morning.
    static let start = Date(timeIntervalSince1970: 1_773_144_000)
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    /// The parts of a meal write answer the journeys read.
    typealias WriteAnswer = MealsSyncTests.WriteAnswer

    /// The parts of `GET /api/sync/conflicts` the journeys read.
    struct ConflictPage: Decodable {
        struct Conflict: Decodable {
            var type: String
            var entityId: String
            var resolution: String
            var winner: String
        }

        var conflicts: [Conflict]
    }

    /// A manual meal of one free-value item of `calories`, as a device stores it.
    static func meal(calories: Double, notes: String? = nil, eatenAt: String, modifiedAt: String, extra: String = "") -> String {
        let notes = notes.map { #","notes":"\#($0)""# } ?? ""
        return
            #"{"items":[\#(TrendsPipelineTests.item(calories: calories))],"eatenAt":"\#(eatenAt)","modifiedAt":"\#(modifiedAt)"\#(notes)\#(extra)}"#
    }

    @Test(
        "two devices edit offline, one replays a queue with duplicates, both sync: both end equal to the server, with the expected winners and no duplicate"
    )
    func twoDevices() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Dana", form: .emailAndPasswordOnly)
            try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"historyRetentionDays":90}"#, token: user.token)
            let edited = UUID().uuidString.lowercased()
            let removed = UUID().uuidString.lowercased()
            for (id, calories) in [(edited, 500.0), (removed, 300.0)] {
                try await stack.expect(
                    .created, .put, "/api/meals/\(id)",
                    json: Self.meal(calories: calories, eatenAt: "2026-03-10T07:30:00Z", modifiedAt: "2026-03-10T07:45:00Z"), token: user.token)
            }
            try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"date":"2026-03-10","weight":72.5}"#, token: user.token)

            // Both devices download everything, B in pages of 2.
            var deviceA = DeviceReplica()
            var deviceB = DeviceReplica()
            try await deviceA.sync(through: stack.gateway, token: user.token)
            #expect(try await deviceB.sync(through: stack.gateway, token: user.token, limit: 2) >= 2, "4 entities came in one page of 2")
            #expect(deviceA.entities == deviceB.entities)
            #expect(Set(deviceA.all("meal").keys) == [edited, removed] && deviceA.all("profile").count == 1)
            #expect(deviceA.all("body_metrics_day").keys.sorted() == ["2026-03-10"])

            // Offline, A edits the meal at 10:00, deletes the other at 10:30 and logs a new one; B edited the same meal at
            // 09:30 and the deleted one at 09:45. A comes online first and replays its queue, each write twice, as a
            // flaky connection resends.
            let newMeal = Self.meal(calories: 400, eatenAt: "2026-03-10T09:00:00Z", modifiedAt: "2026-03-10T09:05:00Z")
            let key: HTTPFields = [Self.idempotencyKey: UUID().uuidString]
            let logged = try await stack.gateway.call(.post, "/api/meals", json: newMeal, token: user.token, headers: key)
            let loggedAgain = try await stack.gateway.call(.post, "/api/meals", json: newMeal, token: user.token, headers: key)
            #expect(logged.status == .created && loggedAgain.status == .created)
            #expect(loggedAgain.headers[Self.replayed] == "true" && Data(buffer: loggedAgain.body) == Data(buffer: logged.body))
            // Answers spell ids in lower case as the feed does (RFC 9562), so a client may key its rows by their text.
            let created = try logged.decoded(WriteAnswer.self).id
            #expect(created == created.lowercased(), "the answer's id \(created) is not in lower case")
            let editA = #"{"notes":"from A","modifiedAt":"2026-03-10T10:00:00Z"}"#
            for _ in 0..<2 {
                let answer = try await stack.expect(.ok, .put, "/api/meals/\(edited)", json: editA, token: user.token).decoded(WriteAnswer.self)
                #expect(answer.notes == "from A" && answer.version == 2 && answer.conflict == nil, "A's edit or its replay: \(answer)")
                try await stack.expect(.noContent, .delete, "/api/meals/\(removed)?modifiedAt=2026-03-10T10:30:00Z", token: user.token)
            }

            // B replays after A: its older edit loses, its edit of the deleted meal finds the deletion.
            let editB = try await stack.expect(
                .ok, .put, "/api/meals/\(edited)", json: #"{"notes":"from B","modifiedAt":"2026-03-10T09:30:00Z"}"#, token: user.token
            ).decoded(WriteAnswer.self)
            #expect(editB.notes == "from A" && editB.conflict == "stale_write_ignored")
            let editDeleted = try await stack.expect(
                .ok, .put, "/api/meals/\(removed)", json: #"{"notes":"from B","modifiedAt":"2026-03-10T09:45:00Z"}"#, token: user.token
            ).decoded(WriteAnswer.self)
            #expect(editDeleted.deleted == true && editDeleted.conflict == "deletion_preserved")

            // Both sync from where they were; a new device downloads everything: all three hold the server's state.
            try await deviceA.sync(through: stack.gateway, token: user.token)
            try await deviceB.sync(through: stack.gateway, token: user.token, limit: 2)
            var fresh = DeviceReplica()
            try await fresh.sync(through: stack.gateway, token: user.token)
            #expect(deviceA.entities == fresh.entities && deviceB.entities == fresh.entities)
            let meals = fresh.all("meal")
            #expect(Set(meals.keys) == [edited, created], "the replayed create made one meal, the deleted one is gone")
            #expect(meals[edited]?.data["notes"]?.stringValue == "from A" && meals[edited]?.version == 2)

            let list = try await stack.expect(.ok, .get, "/api/meals", token: user.token).decoded(MealPage.self)
            #expect(Set(list.meals.map { $0.id.uuidString.lowercased() }) == [edited, created], "the meal list differs from the synced state")

            let conflicts = try await stack.expect(.ok, .get, "/api/sync/conflicts", token: user.token).decoded(ConflictPage.self)
            let resolutions = Dictionary(grouping: conflicts.conflicts, by: \.entityId).mapValues { $0.map(\.resolution) }
            #expect(resolutions == [edited: ["stale_write_ignored"], removed: ["deletion_preserved"]])
            #expect(conflicts.conflicts.allSatisfy { $0.type == "meal" && $0.winner == "stored" })

            // Trends follow the writes: the day holds the two live meals.
            let day = try await stack.gateway.eventually("/api/history/2026-03-10", token: user.token, as: DayHistory.self) {
                $0.meals.count == 2 && $0.summary.calories == 900
            }
            #expect(Set(day.meals.map { $0.mealId.uuidString.lowercased() }) == [edited, created] && day.summary.calories == 900)

            // Once the deletion's tombstone is purged, a cursor from before it can no longer be followed: 410, and the
            // device downloads everything again.
            let stale = deviceB.cursor
            try await stack.expect(.noContent, .delete, "/api/meals/\(created)", token: user.token)
            _ = try await SyncTombstones.purge(
                olderThan: stack.clock.now().addingTimeInterval(1), client: try #require(stack.databases["meals"]), logger: TestEnvironment.logger)
            let expired = try await stack.gateway.call(.get, "/api/sync/changes?since=\(stale)", token: user.token)
            #expect(expired.status == .gone && expired.errorCode == "sync_cursor_expired")
            var again = DeviceReplica()
            try await again.sync(through: stack.gateway, token: user.token)
            #expect(Set(again.all("meal").keys) == [edited])
        }
    }

    @Test("a device's local store moved into a new account: one import, per-item answers, nothing new on repeat, events followed")
    func bulkImport() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Eli", form: .emailAndPasswordOnly)
            let eaten = UUID().uuidString.lowercased()
            let scanned = UUID().uuidString.lowercased()
            let meals = [
                Self.meal(calories: 600, eatenAt: "2026-03-09T12:00:00Z", modifiedAt: "2026-03-09T12:05:00Z", extra: #","id":"\#(eaten)""#),
                Self.meal(
                    calories: 250, eatenAt: "2026-03-09T16:00:00Z", modifiedAt: "2026-03-09T16:00:00Z",
                    extra: #","id":"\#(scanned)","consumed":false"#),
                Self.meal(calories: 600, eatenAt: "2026-03-09T12:00:00Z", modifiedAt: "2026-03-09T12:05:00Z", extra: #","id":"\#(eaten)""#),
                Self.meal(calories: 100, eatenAt: "2026-03-09T12:00:00Z", modifiedAt: "2026-03-09T12:05:00Z", extra: #","id":"local-7""#),
                #"{"id":"\#(UUID().uuidString)","items":"soup"}"#,
            ]
            let weighIns = [#"{"date":"2026-03-09","weight":81.2}"#, #"{"date":"yesterday","weight":81}"#]
            let body = #"{"meals":[\#(meals.joined(separator: ","))],"weighIns":[\#(weighIns.joined(separator: ","))]}"#

            let first = try await stack.expect(.ok, .post, "/api/sync/import", json: body, token: user.token).decoded(SyncImportResponse.self)
            #expect(first.results.map(\.status) == [.created, .created, .alreadyPresent, .rejected, .rejected, .created, .rejected])
            #expect(first.results.map(\.type) == ["meal", "meal", "meal", "meal", "meal", "weigh_in", "weigh_in"])
            #expect(first.results[3].error?.code == "validation_failed" && first.results[3].error?.details["id"] != nil)
            #expect(first.results[4].error?.code == "validation_failed" && first.results[6].error?.details["date"] != nil)
            #expect(first.summary == .init(created: 3, alreadyPresent: 1, rejected: 3))

            // Another device weighs in again for the day; the store sent again (its weigh-in has no modifiedAt) leaves it.
            try await stack.expect(.ok, .post, "/api/metrics/weight", json: #"{"date":"2026-03-09","weight":80.4}"#, token: user.token)
            let repeated = try await stack.expect(.ok, .post, "/api/sync/import", json: body, token: user.token).decoded(SyncImportResponse.self)
            #expect(repeated.summary == .init(alreadyPresent: 4, rejected: 3), "a repeated import changed something: \(repeated.results)")
            let weights = try await stack.expect(.ok, .get, "/api/metrics/daily?days=7", token: user.token).decoded(MetricsVersionedDays.self)
            #expect(weights.entries.map(\.weightKg) == [80.4], "the repeated import overwrote the newer weigh-in")

            // Two devices import the same new meals at once: each meal is created once, neither request fails.
            let shared = (0..<3).map { index in
                Self.meal(
                    calories: 100, eatenAt: "2026-03-08T0\(index):00:00Z", modifiedAt: "2026-03-08T0\(index):00:00Z",
                    extra: #","id":"\#(UUID().uuidString)""#)
            }
            let sharedBody = #"{"meals":[\#(shared.joined(separator: ","))]}"#
            async let one = stack.gateway.call(.post, "/api/sync/import", json: sharedBody, token: user.token)
            async let other = stack.gateway.call(.post, "/api/sync/import", json: sharedBody, token: user.token)
            let answers = try await [one, other]
            #expect(answers.map(\.status) == [.ok, .ok], "concurrent imports answered \(answers.map(\.status))")
            let summaries = try answers.map { try $0.decoded(SyncImportResponse.self).summary }
            #expect(summaries.map(\.created).reduce(0, +) == 3 && summaries.map(\.alreadyPresent).reduce(0, +) == 3)

            let key: HTTPFields = [Self.idempotencyKey: UUID().uuidString]
            let keyed = try await stack.gateway.call(.post, "/api/sync/import", json: body, token: user.token, headers: key)
            let keyedAgain = try await stack.gateway.call(.post, "/api/sync/import", json: body, token: user.token, headers: key)
            #expect(keyed.status == .ok && keyedAgain.headers[Self.replayed] == "true")
            #expect(String(buffer: keyedAgain.body) == String(buffer: keyed.body))

            var device = DeviceReplica()
            try await device.sync(through: stack.gateway, token: user.token)
            #expect(device.all("meal").count == 5 && device.all("meal")[eaten] != nil && device.all("meal")[scanned] != nil)
            #expect(device.all("body_metrics_day").keys.sorted() == ["2026-03-09"])
            let day = try await stack.gateway.eventually("/api/history/2026-03-09", token: user.token, as: DayHistory.self) {
                $0.summary.calories == 600 && $0.summary.mealsScanned == 1
            }
            #expect(day.summary.calories == 600 && day.summary.mealsConsumed == 1 && day.summary.mealsScanned == 1)

            let tooMany = #"{"meals":[\#(Array(repeating: meals[0], count: 501).joined(separator: ","))]}"#
            let refused = try await stack.expect(.unprocessableContent, .post, "/api/sync/import", json: tooMany, token: user.token)
            #expect(refused.errorCode == "validation_failed")
            try await stack.expect(.unprocessableContent, .post, "/api/sync/import", json: #"{"meals":[],"weighIns":[]}"#, token: user.token)
        }
    }

    @Test(
        "history retention: meals and days older than the profile's historyRetentionDays go as deletions do; custom meals stay; replicas purge once")
    func historyRetention() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let user = try await stack.signUp("Fay", form: .emailAndPasswordOnly)
            // 30 days kept on 2026-03-10 (UTC): 2026-02-08 is the first date kept, 2026-02-07 the last one purged.
            let old = UUID().uuidString.lowercased()
            let edge = UUID().uuidString.lowercased()
            let recent = UUID().uuidString.lowercased()
            for (id, eatenAt) in [(old, "2026-02-07T23:30:00Z"), (edge, "2026-02-08T00:30:00Z"), (recent, "2026-03-01T12:00:00Z")] {
                try await stack.expect(
                    .created, .put, "/api/meals/\(id)", json: Self.meal(calories: 500, eatenAt: eatenAt, modifiedAt: eatenAt), token: user.token)
            }
            for date in ["2026-02-07", "2026-02-08"] {
                try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"date":"\#(date)","weight":70}"#, token: user.token)
            }
            let custom = try await stack.expect(
                .created, .post, "/api/custom-meals", json: #"{"name":"Usual lunch","items":[\#(TrendsPipelineTests.item(calories: 500))]}"#,
                token: user.token)
            let customId = try custom.decoded(WriteAnswer.self).id.lowercased()
            _ = try await stack.gateway.eventually("/api/history/2026-02-07", token: user.token, as: DayHistory.self) { $0.meals.count == 1 }

            try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"historyRetentionDays":30}"#, token: user.token)
            let mealsDatabase = try #require(stack.databases["meals"])
            let metricsDatabase = try #require(stack.databases["metrics"])
            let meals = MealRepository()
            let profiles = ProfileRepository()
            let photos = TestServices.photoVault(keys: try TestServices.photoKeys())
            // Each replica runs the job on its own schedule: two at once delete each old meal once.
            let replicas = (0..<2).map { _ in
                MealHistoryRetention(
                    client: mealsDatabase, meals: meals, profiles: profiles,
                    store: PostgresMealStore(client: mealsDatabase, meals: meals, photos: photos, now: { stack.clock.now() }), batchSize: 1)
            }
            var purged = 0
            _ = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                // The profile event reaches the meals service on its own time; until then nothing is purged.
                async let first = replicas[0].purge(now: stack.clock.now(), logger: TestEnvironment.logger)
                async let second = replicas[1].purge(now: stack.clock.now(), logger: TestEnvironment.logger)
                purged += try await first + second
                return purged > 0
            }
            #expect(purged == 1, "the two replicas deleted \(purged) meals, not the one old meal once")
            let metricsPurge = HistoryRetentionPurge(client: metricsDatabase, days: DailyMetricsRepository(), profiles: MetricsProfileRepository())
            var emptied = 0
            _ = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                emptied += try await metricsPurge.purge(now: stack.clock.now(), logger: TestEnvironment.logger)
                return emptied > 0
            }
            #expect(emptied == 1)

            var device = DeviceReplica()
            try await device.sync(through: stack.gateway, token: user.token)
            #expect(Set(device.all("meal").keys) == [edge, recent] && Array(device.all("custom_meal").keys) == [customId])
            #expect(device.all("body_metrics_day").keys.sorted() == ["2026-02-08"])
            let history = try await stack.gateway.eventually("/api/history/2026-02-07", token: user.token, as: DayHistory.self) {
                $0.meals.isEmpty
            }
            #expect(history.meals.isEmpty, "trends kept the purged meal")

            // An import of what the account no longer keeps is refused item by item, so the next purge has nothing to do.
            let tooOld =
                #"{"meals":[\#(Self.meal(calories: 300, eatenAt: "2026-02-07T12:00:00Z", modifiedAt: "2026-02-07T12:00:00Z", extra: #","id":"\#(UUID().uuidString)""#))],"#
                + #""weighIns":[{"date":"2026-02-07","weight":71,"modifiedAt":"2026-02-07T08:00:00Z"}]}"#
            let refused = try await stack.expect(.ok, .post, "/api/sync/import", json: tooOld, token: user.token).decoded(SyncImportResponse.self)
            #expect(refused.results.map(\.status) == [.rejected, .rejected])
            #expect(refused.results.map { $0.error?.code } == ["beyond_history_retention", "beyond_history_retention"])
            try await stack.checkEvents(of: [user.id], covering: [.mealDeleted, .weightLogged])
        }
    }
}
