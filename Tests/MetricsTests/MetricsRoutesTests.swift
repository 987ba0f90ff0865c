import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import MetricsService

/// The metrics routes at the router level, on the in-memory store: statuses, units, validation and what each change
/// publishes.
@Suite("Metrics routes on an in-memory store")
struct MetricsRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    let userId = UUID()
    let store = InMemoryBodyMetricsStore(now: { MetricsRoutesTests.now })

    /// The subset of a weight entry the tests read.
    struct WeightEntry: Decodable, Equatable {
        var date: String
        var weight: Double
        var unit: String
        var weightKg: Double
        var notes: String?
        var version: Int
    }

    struct DailyEntry: Decodable, Equatable {
        var date: String
        var weightKg: Double?
        var ketones: Double?
        var inKetosis: Bool?
        var version: Int
    }

    struct List<Entry: Decodable>: Decodable {
        var from: String
        var to: String
        var entries: [Entry]
    }

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "metrics", checks: [])
        MetricsController(store: store, now: { Self.now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    var callerHeaders: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString, .contentType: "application/json"]
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    @Test("the day's first weight is 201 with its ETag, a second that day replaces it with 200, and each change publishes the day")
    func firstWeightThenReplacement() async throws {
        try await withRoutes { client in
            let first = try await client.execute(
                uri: "/api/metrics/weight", method: .post, headers: callerHeaders,
                body: ByteBuffer(string: #"{"date":"2026-05-09","weight":80.5,"notes":"after run"}"#))
            #expect(first.status == .created)
            #expect(first.headers[.eTag] == "\"1\"")
            #expect(
                try decode(WeightEntry.self, first)
                    == WeightEntry(date: "2026-05-09", weight: 80.5, unit: "kg", weightKg: 80.5, notes: "after run", version: 1))

            let second = try await client.execute(
                uri: "/api/metrics/weight", method: .post, headers: callerHeaders, body: ByteBuffer(string: #"{"date":"2026-05-09","weight":80.1}"#))
            #expect(second.status == .ok)
            #expect(second.headers[.eTag] == "\"2\"")
            #expect(try decode(WeightEntry.self, second).notes == "after run", "notes absent from the second entry are kept")
        }
        #expect(store.published.map(\.version) == [1, 2])
        #expect(store.published.map(\.weightKg) == [80.5, 80.1])
        #expect(store.published.allSatisfy { $0.userId == userId && $0.date == "2026-05-09" })
    }

    @Test("a weight in pounds is stored in kilograms and answered in the unit asked for")
    func poundsAreStoredInKilograms() async throws {
        try await withRoutes { client in
            let logged = try await client.execute(
                uri: "/api/metrics/weight", method: .post, headers: callerHeaders,
                body: ByteBuffer(string: #"{"date":"2026-05-10","weight":176.4,"unit":"lbs"}"#))
            #expect(logged.status == .created)
            let entry = try decode(WeightEntry.self, logged)
            #expect(entry.unit == "lbs" && entry.weight == 176.4)
            #expect(abs(entry.weightKg - 80.01) < 0.01)

            let listed = try await client.execute(uri: "/api/metrics/weight?days=7&unit=kg", method: .get, headers: callerHeaders)
            #expect(listed.status == .ok)
            let list = try decode(List<WeightEntry>.self, listed)
            #expect(list.from == "2026-05-04" && list.to == "2026-05-10")
            #expect(list.entries.map(\.unit) == ["kg"])
            #expect(abs((list.entries.first?.weight ?? 0) - 80.01) < 0.01)
        }
        let day = try #require(CalendarDate("2026-05-10"))
        let stored = try #require(store.day(of: userId, on: day))
        #expect(abs((stored.weightKg ?? 0) - 80.013) < 0.001)
    }

    @Test("invalid fields answer 422 naming each one, and nothing is stored or published")
    func invalidFieldsChangeNothing() async throws {
        try await withRoutes { client in
            let response = try await client.execute(
                uri: "/api/metrics/weight", method: .post, headers: callerHeaders,
                body: ByteBuffer(string: #"{"date":"2026-13-40","weight":5000,"unit":"stone"}"#))
            #expect(response.status == .unprocessableContent)
            let error = try decode(ErrorBody.self, response)
            #expect(error.error.code == "validation_failed")
            #expect(Set(error.error.details.keys) == ["date", "weight", "unit"])
        }
        #expect(store.published.isEmpty)
    }

    @Test("removing a weight the day does not have is 404 and publishes nothing; removing one leaves the day out of the list")
    func removal() async throws {
        try await withRoutes { client in
            let missing = try await client.execute(uri: "/api/metrics/weight/2026-05-08", method: .delete, headers: callerHeaders)
            #expect(missing.status == .notFound)
            #expect(store.published.isEmpty)

            _ = try await client.execute(
                uri: "/api/metrics/weight", method: .post, headers: callerHeaders, body: ByteBuffer(string: #"{"date":"2026-05-08","weight":81}"#))
            let removed = try await client.execute(uri: "/api/metrics/weight/2026-05-08", method: .delete, headers: callerHeaders)
            #expect(removed.status == .noContent)
            let listed = try await client.execute(uri: "/api/metrics/daily", method: .get, headers: callerHeaders)
            #expect(try decode(List<DailyEntry>.self, listed).entries.isEmpty)
        }
        #expect(store.published.map(\.version) == [1, 2])
        #expect(store.published.last?.weightKg == nil, "the removal publishes the emptied day")
    }

    @Test("the daily list holds each recorded day oldest first, with ketosis from the ketone level")
    func dailyList() async throws {
        try await withRoutes { client in
            for body in [#"{"date":"2026-05-09","level":1.2}"#, #"{"date":"2026-05-07","level":0.3}"#] {
                let response = try await client.execute(
                    uri: "/api/metrics/ketones", method: .post, headers: callerHeaders, body: ByteBuffer(string: body))
                #expect(response.status == .created)
            }
            _ = try await client.execute(
                uri: "/api/metrics/weight", method: .post, headers: callerHeaders, body: ByteBuffer(string: #"{"date":"2026-05-09","weight":79}"#))
            let listed = try await client.execute(uri: "/api/metrics/daily", method: .get, headers: callerHeaders)
            let list = try decode(List<DailyEntry>.self, listed)
            #expect(list.from == "2026-05-04" && list.to == "2026-05-10")
            #expect(
                list.entries == [
                    DailyEntry(date: "2026-05-07", weightKg: nil, ketones: 0.3, inKetosis: false, version: 1),
                    DailyEntry(date: "2026-05-09", weightKg: 79, ketones: 1.2, inKetosis: true, version: 2),
                ])
        }
    }

    @Test("a request without the gateway's caller headers is 401 and reaches no store")
    func callerIsRequired() async throws {
        try await withRoutes { client in
            let response = try await client.execute(uri: "/api/metrics/daily", method: .get)
            #expect(response.status == .unauthorized)
        }
        #expect(store.published.isEmpty)
    }
}
