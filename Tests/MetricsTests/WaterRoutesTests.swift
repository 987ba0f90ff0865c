import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import SyncContracts
import TestSupport
import Testing

@testable import MetricsService

/// The water routes, the metrics changes feed and the metrics import at the router level, on the in-memory store:
/// entries summed per day, the day's total published as `water.logged`, last-write-wins by entry, removals as
/// tombstones, and ketone levels and water in the import. Each test runs with every one of `TestToday.variety` as
/// today (each weekday, UTC+14, UTC-11, a week with a daylight-saving change), the user in its zone.
@Suite("Water on an in-memory store")
struct WaterRoutesTests {
    /// The subset of a water answer the tests read.
    struct WaterAnswer: Decodable, Equatable {
        var id: String
        var date: String?
        var millilitres: Int?
        var version: Int
        var deleted: Bool?
        var conflict: String?
    }

    struct WaterDay: Decodable, Equatable {
        var date: String
        var totalMillilitres: Int
        var entries: [WaterAnswer]
    }

    struct List: Decodable {
        var from: String
        var to: String
        var entries: [WaterDay]
    }

    struct Change: Decodable {
        var type: String
        var id: String
        var deleted: Bool
        var data: WaterAnswer?
    }

    struct Page: Decodable {
        var changes: [Change]
    }

    struct ImportAnswer: Decodable {
        struct Result: Decodable, Equatable {
            var type: String
            var id: String
            var status: String
        }

        var results: [Result]
    }

    @Test(
        "entries of one day add up: each is 201, the list shows the day's total, and each change publishes the new total",
        arguments: TestToday.variety)
    func entriesSumPerDay(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        try await routes.withRoutes { client in
            let first = try await routes.send(client, .post, "/api/metrics/water", #"{"millilitres":250}"#)
            #expect(first.status == .created)
            #expect(try routes.decode(WaterAnswer.self, first).date == day.date, "today in the user's zone when no date is sent")
            let second = try await routes.send(client, .post, "/api/metrics/water", #"{"millilitres":500,"date":"\#(day.date)"}"#)
            #expect(second.status == .created)
            let other = try await routes.send(client, .post, "/api/metrics/water", #"{"millilitres":330,"date":"\#(day.date(daysAgo: 2))"}"#)
            #expect(other.status == .created)

            let listed = try routes.decode(List.self, try await routes.send(client, .get, "/api/metrics/water?days=7"))
            #expect(listed.from == day.date(daysAgo: 6) && listed.to == day.date)
            #expect(listed.entries.map(\.date) == [day.date(daysAgo: 2), day.date])
            #expect(listed.entries.map(\.totalMillilitres) == [330, 750])
            #expect(listed.entries.last?.entries.compactMap(\.millilitres).sorted() == [250, 500])
        }
        let published = routes.store.publishedWater.map { [$0.date, "\($0.totalMillilitres)", "\($0.entryCount)", "\($0.version)"] }
        #expect(published == [[day.date, "250", "1", "1"], [day.date, "750", "2", "2"], [day.date(daysAgo: 2), "330", "1", "1"]])
    }

    @Test(
        "millilitres outside 1-10000, fractions, a bad id or a date after today in the user's zone are 422 naming each field, and nothing is stored",
        arguments: TestToday.variety)
    func invalidWater(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        let refusals: [(body: String, fields: Set<String>)] = [
            (#"{"millilitres":0}"#, ["millilitres"]), (#"{"millilitres":10001}"#, ["millilitres"]), (#"{"millilitres":250.5}"#, ["millilitres"]),
            (#"{"millilitres":250,"id":"nope","date":"\#(day.date(daysAgo: -2))"}"#, ["id", "date"]),
            (#"{"millilitres":250,"date":"\#(day.date(daysAgo: -1))"}"#, ["date"]),
        ]
        try await routes.withRoutes { client in
            for (body, fields) in refusals {
                let response = try await routes.send(client, .post, "/api/metrics/water", body)
                #expect(response.status == .unprocessableContent, "\(body)")
                #expect(Set(try routes.decode(ErrorBody.self, response).error.details.keys) == fields, "\(body)")
            }
        }
        #expect(routes.store.publishedWater.isEmpty)
    }

    @Test(
        "the entry of a client's id: a replay changes nothing, an older write loses with stale_write_ignored, a newer one moves it to another day",
        arguments: TestToday.variety)
    func clientIdLastWriteWins(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        let id = UUID()
        let (yesterday, today) = (day.date(daysAgo: 1), day.date)
        // Stamps before now (a later one would count as now): yesterday 10:00 and 09:00, today an hour ago.
        let (first, older, newer) = (
            TestToday.timestamp(day.time(daysAgo: 1, hour: 10)), TestToday.timestamp(day.time(daysAgo: 1, hour: 9)),
            TestToday.timestamp(day.now.addingTimeInterval(-3_600))
        )
        try await routes.withRoutes { client in
            let body = #"{"id":"\#(id.uuidString)","millilitres":300,"date":"\#(yesterday)","modifiedAt":"\#(first)"}"#
            #expect(try await routes.send(client, .post, "/api/metrics/water", body).status == .created)
            let replay = try await routes.send(client, .post, "/api/metrics/water", body)
            #expect(replay.status == .ok)
            #expect(try routes.decode(WaterAnswer.self, replay).version == 1)

            let lost = try await routes.send(
                client, .post, "/api/metrics/water",
                #"{"id":"\#(id.uuidString.lowercased())","millilitres":900,"date":"\#(yesterday)","modifiedAt":"\#(older)"}"#)
            let stale = try routes.decode(WaterAnswer.self, lost)
            #expect(lost.status == .ok)
            #expect(stale.millilitres == 300 && stale.conflict == "stale_write_ignored")
            #expect(stale.id == id.uuidString.lowercased(), "ids are answered in lower case")

            let won = try await routes.send(
                client, .post, "/api/metrics/water", #"{"id":"\#(id.uuidString)","millilitres":400,"date":"\#(today)","modifiedAt":"\#(newer)"}"#)
            #expect(won.status == .ok)
            #expect(
                try routes.decode(WaterAnswer.self, won) == WaterAnswer(id: id.uuidString.lowercased(), date: today, millilitres: 400, version: 2))
        }
        #expect(routes.store.conflicts.map(\.resolution) == [.staleWriteIgnored])
        try await routes.withRoutes { client in
            // The conflict is listed as a water entry's, under the entry's id: the OpenAPI document must describe it.
            let listed = try await routes.send(client, .get, "/api/sync/metrics/conflicts")
            let page = try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [String: Any]
            let conflicts = page?["conflicts"] as? [[String: Any]] ?? []
            #expect(listed.status == .ok && conflicts.map { $0["type"] as? String } == ["water_entry"])
            #expect(conflicts.map { $0["entityId"] as? String } == [id.uuidString.lowercased()])
        }
        let moved = routes.store.publishedWater.suffix(2).map { "\($0.date)=\($0.totalMillilitres)" }
        #expect(moved == ["\(yesterday)=0", "\(today)=400"], "moving an entry publishes both days")
    }

    @Test(
        "a removed entry is a tombstone in the feed, its day's total drops, a second removal is 404, and its id is never brought back",
        arguments: TestToday.variety)
    func removal(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        let id = UUID()
        try await routes.withRoutes { client in
            #expect(try await routes.send(client, .post, "/api/metrics/water", #"{"id":"\#(id)","millilitres":250}"#).status == .created)
            #expect(try await routes.send(client, .post, "/api/metrics/water", #"{"millilitres":100}"#).status == .created)
            let before = try routes.decode(List.self, try await routes.send(client, .get, "/api/metrics/water"))
            #expect(before.entries.map(\.totalMillilitres) == [350] && before.entries.map(\.date) == [day.date], "both are today's before")
            #expect(try await routes.send(client, .delete, "/api/metrics/water/\(id.uuidString.lowercased())").status == .noContent)
            #expect(try await routes.send(client, .delete, "/api/metrics/water/\(id)").status == .notFound)
            #expect(try await routes.send(client, .delete, "/api/metrics/water/\(UUID())").status == .notFound)

            let again = try await routes.send(client, .post, "/api/metrics/water", #"{"id":"\#(id)","millilitres":250}"#)
            #expect(again.status == .ok)
            let kept = try routes.decode(WaterAnswer.self, again)
            #expect(kept.deleted == true && kept.conflict == "deletion_preserved")

            let listed = try routes.decode(List.self, try await routes.send(client, .get, "/api/metrics/water"))
            #expect(listed.entries.map(\.totalMillilitres) == [100])

            let feed = try routes.decode(Page.self, try await routes.send(client, .get, "/api/sync/metrics/changes?since=0"))
            let removed = feed.changes.first { $0.id == id.uuidString.lowercased() }
            #expect(removed?.type == "water_entry" && removed?.deleted == true && removed?.data == nil)
            let live = feed.changes.filter { !$0.deleted }
            #expect(live.map(\.type) == ["water_entry"] && live.first?.data?.millilitres == 100)
        }
        #expect(routes.store.publishedWater.map(\.totalMillilitres) == [250, 350, 100])
    }

    @Test(
        "the import takes ketone levels and water beside weigh-ins, answers each item, and a second run changes nothing", arguments: TestToday.variety
    )
    func importKetonesAndWater(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        let water = UUID()
        let (yesterday, twoDaysAgo) = (day.date(daysAgo: 1), day.date(daysAgo: 2))
        let body = """
            {"weighIns":[{"date":"\(yesterday)","weight":80}],
             "ketones":[{"date":"\(yesterday)","level":1.4},{"date":"\(twoDaysAgo)","level":99}],
             "water":[{"id":"\(water)","millilitres":500,"date":"\(yesterday)"},{"millilitres":200}]}
            """
        try await routes.withRoutes { client in
            let first = try routes.decode(ImportAnswer.self, try await routes.send(client, .post, "/api/sync/metrics/import", body))
            #expect(
                first.results.map { "\($0.type) \($0.id.lowercased()) \($0.status)" } == [
                    "weigh_in \(yesterday) created", "ketones \(yesterday) created", "ketones \(twoDaysAgo) rejected",
                    "water_entry \(water.uuidString.lowercased()) created", "water_entry  rejected",
                ])
            let second = try routes.decode(ImportAnswer.self, try await routes.send(client, .post, "/api/sync/metrics/import", body))
            #expect(second.results.map(\.status) == ["already_present", "already_present", "rejected", "already_present", "rejected"])

            let listed = try routes.decode(List.self, try await routes.send(client, .get, "/api/metrics/water"))
            #expect(listed.entries.map(\.totalMillilitres) == [500])
        }
        let stored = try routes.storedDay(daysAgo: 1)
        #expect(stored?.ketones == 1.4 && stored?.weightKg == 80)
    }
}
