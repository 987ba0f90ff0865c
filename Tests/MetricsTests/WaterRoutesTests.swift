import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import SyncContracts
import Testing

@testable import MetricsService

/// The water routes, the metrics changes feed and the metrics import at the router level, on the in-memory store:
/// entries summed per day, the day's total published as `water.logged`, last-write-wins by entry, removals as
/// tombstones, and ketone levels and water in the import.
@Suite("Water on an in-memory store")
struct WaterRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    let userId = UUID()
    let store = InMemoryBodyMetricsStore(now: { WaterRoutesTests.now })

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

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "metrics", checks: [])
        WaterController(store: store, now: { Self.now }).addRoutes(to: router)
        MetricsSyncController(store: store, now: { Self.now }).addRoutes(to: router)
        MetricsImportController(store: store, now: { Self.now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    var headers: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString, .contentType: "application/json"]
    }

    func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil) async throws -> TestResponse {
        try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    @Test("entries of one day add up: each is 201, the list shows the day's total, and each change publishes the new total")
    func entriesSumPerDay() async throws {
        try await withRoutes { client in
            let first = try await send(client, .post, "/api/metrics/water", #"{"millilitres":250}"#)
            #expect(first.status == .created)
            #expect(try decode(WaterAnswer.self, first).date == "2026-05-10", "today in the user's zone when no date is sent")
            let second = try await send(client, .post, "/api/metrics/water", #"{"millilitres":500,"date":"2026-05-10"}"#)
            #expect(second.status == .created)
            let other = try await send(client, .post, "/api/metrics/water", #"{"millilitres":330,"date":"2026-05-08"}"#)
            #expect(other.status == .created)

            let listed = try decode(List.self, try await send(client, .get, "/api/metrics/water?days=7"))
            #expect(listed.from == "2026-05-04" && listed.to == "2026-05-10")
            #expect(listed.entries.map(\.date) == ["2026-05-08", "2026-05-10"])
            #expect(listed.entries.map(\.totalMillilitres) == [330, 750])
            #expect(listed.entries.last?.entries.compactMap(\.millilitres).sorted() == [250, 500])
        }
        let published = store.publishedWater.map { [$0.date, "\($0.totalMillilitres)", "\($0.entryCount)", "\($0.version)"] }
        #expect(published == [["2026-05-10", "250", "1", "1"], ["2026-05-10", "750", "2", "2"], ["2026-05-08", "330", "1", "1"]])
    }

    @Test(
        "millilitres outside 1-10000, fractions, a bad id or a future date are 422 naming each field, and nothing is stored",
        arguments: [
            (#"{"millilitres":0}"#, ["millilitres"]), (#"{"millilitres":10001}"#, ["millilitres"]),
            (#"{"millilitres":250.5}"#, ["millilitres"]), (#"{"millilitres":250,"id":"nope","date":"2026-05-12"}"#, ["id", "date"]),
        ])
    func invalidWater(body: String, fields: [String]) async throws {
        try await withRoutes { client in
            let response = try await send(client, .post, "/api/metrics/water", body)
            #expect(response.status == .unprocessableContent)
            #expect(Set(try decode(ErrorBody.self, response).error.details.keys) == Set(fields))
        }
        #expect(store.publishedWater.isEmpty)
    }

    @Test("the entry of a client's id: a replay changes nothing, an older write loses with stale_write_ignored, a newer one moves it to another day")
    func clientIdLastWriteWins() async throws {
        let id = UUID()
        try await withRoutes { client in
            let body = #"{"id":"\#(id.uuidString)","millilitres":300,"date":"2026-05-09","modifiedAt":"2026-05-09T10:00:00Z"}"#
            #expect(try await send(client, .post, "/api/metrics/water", body).status == .created)
            let replay = try await send(client, .post, "/api/metrics/water", body)
            #expect(replay.status == .ok)
            #expect(try decode(WaterAnswer.self, replay).version == 1)

            let older = try await send(
                client, .post, "/api/metrics/water",
                #"{"id":"\#(id.uuidString.lowercased())","millilitres":900,"date":"2026-05-09","modifiedAt":"2026-05-09T09:00:00Z"}"#)
            let stale = try decode(WaterAnswer.self, older)
            #expect(older.status == .ok)
            #expect(stale.millilitres == 300 && stale.conflict == "stale_write_ignored")
            #expect(stale.id == id.uuidString.lowercased(), "ids are answered in lower case")

            let newer = try await send(
                client, .post, "/api/metrics/water",
                #"{"id":"\#(id.uuidString)","millilitres":400,"date":"2026-05-10","modifiedAt":"2026-05-10T08:00:00Z"}"#)
            #expect(newer.status == .ok)
            #expect(
                try decode(WaterAnswer.self, newer) == WaterAnswer(id: id.uuidString.lowercased(), date: "2026-05-10", millilitres: 400, version: 2))
        }
        #expect(store.conflicts.map(\.resolution) == [.staleWriteIgnored])
        try await withRoutes { client in
            // The conflict is listed as a water entry's, under the entry's id: the OpenAPI document must describe it.
            let listed = try await send(client, .get, "/api/sync/metrics/conflicts")
            let page = try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [String: Any]
            let conflicts = page?["conflicts"] as? [[String: Any]] ?? []
            #expect(listed.status == .ok && conflicts.map { $0["type"] as? String } == ["water_entry"])
            #expect(conflicts.map { $0["entityId"] as? String } == [id.uuidString.lowercased()])
        }
        let moved = store.publishedWater.suffix(2).map { "\($0.date)=\($0.totalMillilitres)" }
        #expect(moved == ["2026-05-09=0", "2026-05-10=400"], "moving an entry publishes both days")
    }

    @Test("a removed entry is a tombstone in the feed, its day's total drops, a second removal is 404, and its id is never brought back")
    func removal() async throws {
        let id = UUID()
        try await withRoutes { client in
            #expect(try await send(client, .post, "/api/metrics/water", #"{"id":"\#(id)","millilitres":250}"#).status == .created)
            #expect(try await send(client, .post, "/api/metrics/water", #"{"millilitres":100}"#).status == .created)
            #expect(try await send(client, .delete, "/api/metrics/water/\(id.uuidString.lowercased())").status == .noContent)
            #expect(try await send(client, .delete, "/api/metrics/water/\(id)").status == .notFound)
            #expect(try await send(client, .delete, "/api/metrics/water/\(UUID())").status == .notFound)

            let again = try await send(client, .post, "/api/metrics/water", #"{"id":"\#(id)","millilitres":250}"#)
            #expect(again.status == .ok)
            let kept = try decode(WaterAnswer.self, again)
            #expect(kept.deleted == true && kept.conflict == "deletion_preserved")

            let listed = try decode(List.self, try await send(client, .get, "/api/metrics/water"))
            #expect(listed.entries.map(\.totalMillilitres) == [100])

            let feed = try decode(Page.self, try await send(client, .get, "/api/sync/metrics/changes?since=0"))
            let removed = feed.changes.first { $0.id == id.uuidString.lowercased() }
            #expect(removed?.type == "water_entry" && removed?.deleted == true && removed?.data == nil)
            let live = feed.changes.filter { !$0.deleted }
            #expect(live.map(\.type) == ["water_entry"] && live.first?.data?.millilitres == 100)
        }
        #expect(store.publishedWater.map(\.totalMillilitres) == [250, 350, 100])
    }

    @Test("the import takes ketone levels and water beside weigh-ins, answers each item, and a second run changes nothing")
    func importKetonesAndWater() async throws {
        let water = UUID()
        let body = """
            {"weighIns":[{"date":"2026-05-09","weight":80}],
             "ketones":[{"date":"2026-05-09","level":1.4},{"date":"2026-05-08","level":99}],
             "water":[{"id":"\(water)","millilitres":500,"date":"2026-05-09"},{"millilitres":200}]}
            """
        try await withRoutes { client in
            let first = try decode(ImportAnswer.self, try await send(client, .post, "/api/sync/metrics/import", body))
            #expect(
                first.results.map { "\($0.type) \($0.id.lowercased()) \($0.status)" } == [
                    "weigh_in 2026-05-09 created", "ketones 2026-05-09 created", "ketones 2026-05-08 rejected",
                    "water_entry \(water.uuidString.lowercased()) created", "water_entry  rejected",
                ])
            let second = try decode(ImportAnswer.self, try await send(client, .post, "/api/sync/metrics/import", body))
            #expect(second.results.map(\.status) == ["already_present", "already_present", "rejected", "already_present", "rejected"])

            let listed = try decode(List.self, try await send(client, .get, "/api/metrics/water"))
            #expect(listed.entries.map(\.totalMillilitres) == [500])
        }
        let day = try #require(CalendarDate("2026-05-09"))
        #expect(store.day(of: userId, on: day)?.ketones == 1.4 && store.day(of: userId, on: day)?.weightKg == 80)
    }
}
