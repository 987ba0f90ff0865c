import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceDefaults
import TestSupport
import Testing

@testable import MetricsService

/// The metrics routes at the router level, on the in-memory store: statuses, units, validation and what each change
/// publishes. The tests about days run with each of `TestToday.variety` as today (each weekday, UTC+14, UTC-11, a week
/// with a daylight-saving change), the user in its zone.
@Suite("Metrics routes on an in-memory store")
struct MetricsRoutesTests {
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

    @Test(
        "the day's first weight is 201 with its ETag, a second that day replaces it with 200, and each change publishes the day",
        arguments: TestToday.variety)
    func firstWeightThenReplacement(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        let yesterday = day.date(daysAgo: 1)
        try await routes.withRoutes { client in
            let first = try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"\#(yesterday)","weight":80.5,"notes":"after run"}"#)
            #expect(first.status == .created)
            #expect(first.headers[.eTag] == "\"1\"")
            #expect(
                try routes.decode(WeightEntry.self, first)
                    == WeightEntry(date: yesterday, weight: 80.5, unit: "kg", weightKg: 80.5, notes: "after run", version: 1))

            let second = try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"\#(yesterday)","weight":80.1}"#)
            #expect(second.status == .ok)
            #expect(second.headers[.eTag] == "\"2\"")
            #expect(try routes.decode(WeightEntry.self, second).notes == "after run", "notes absent from the second entry are kept")
        }
        #expect(routes.store.published.map(\.version) == [1, 2])
        #expect(routes.store.published.map(\.weightKg) == [80.5, 80.1])
        #expect(routes.store.published.allSatisfy { $0.userId == routes.userId && $0.date == yesterday })
    }

    @Test(
        "a measurement without a date is today's in the user's zone; tomorrow there is refused as the future", arguments: TestToday.variety)
    func undatedIsToday(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        try await routes.withRoutes { client in
            let weight = try await routes.send(client, .post, "/api/metrics/weight", #"{"weight":70}"#)
            #expect(weight.status == .created)
            #expect(try routes.decode(WeightEntry.self, weight).date == day.date)
            let ketones = try await routes.send(client, .post, "/api/metrics/ketones", #"{"level":0.8}"#)
            #expect(ketones.status == .created, "\(String(buffer: ketones.body))")
            #expect(try routes.decode(DailyEntry.self, ketones).date == day.date, "\(String(buffer: ketones.body))")
            let tomorrow = try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"\#(day.date(daysAgo: -1))","weight":70}"#)
            #expect(tomorrow.status == .unprocessableContent)
            #expect(try routes.decode(ErrorBody.self, tomorrow).error.details.keys.sorted() == ["date"])
        }
        #expect(routes.store.published.map(\.date) == [day.date, day.date])
    }

    @Test("a weight in pounds is stored in kilograms and answered in the unit asked for", arguments: TestToday.variety)
    func poundsAreStoredInKilograms(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        try await routes.withRoutes { client in
            let logged = try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"\#(day.date)","weight":176.4,"unit":"lbs"}"#)
            #expect(logged.status == .created)
            let entry = try routes.decode(WeightEntry.self, logged)
            #expect(entry.unit == "lbs" && entry.weight == 176.4)
            #expect(abs(entry.weightKg - 80.01) < 0.01)

            let listed = try await routes.send(client, .get, "/api/metrics/weight?days=7&unit=kg")
            #expect(listed.status == .ok)
            let list = try routes.decode(List<WeightEntry>.self, listed)
            #expect(list.from == day.date(daysAgo: 6) && list.to == day.date)
            #expect(list.entries.map(\.unit) == ["kg"])
            #expect(abs((list.entries.first?.weight ?? 0) - 80.01) < 0.01)
        }
        let stored = try #require(try routes.storedDay(daysAgo: 0))
        #expect(abs((stored.weightKg ?? 0) - 80.013) < 0.001)
    }

    /// Day-independent: the date is refused for its shape.
    @Test("invalid fields answer 422 naming each one, and nothing is stored or published")
    func invalidFieldsChangeNothing() async throws {
        let routes = MetricsRoutesHarness(TestToday.weekdays[0])
        try await routes.withRoutes { client in
            let response = try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"2026-13-40","weight":5000,"unit":"stone"}"#)
            #expect(response.status == .unprocessableContent)
            let error = try routes.decode(ErrorBody.self, response)
            #expect(error.error.code == "validation_failed")
            #expect(Set(error.error.details.keys) == ["date", "weight", "unit"])
        }
        #expect(routes.store.published.isEmpty)
    }

    @Test(
        "removing a weight the day does not have is 404 and publishes nothing; removing one leaves the day out of the list",
        arguments: TestToday.variety)
    func removal(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        let twoDaysAgo = day.date(daysAgo: 2)
        try await routes.withRoutes { client in
            let missing = try await routes.send(client, .delete, "/api/metrics/weight/\(twoDaysAgo)")
            #expect(missing.status == .notFound)
            #expect(routes.store.published.isEmpty)

            #expect(try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"\#(twoDaysAgo)","weight":81}"#).status == .created)
            let before = try routes.decode(List<DailyEntry>.self, try await routes.send(client, .get, "/api/metrics/daily"))
            #expect(before.entries.map(\.date) == [twoDaysAgo], "the day is listed before its removal")
            let removed = try await routes.send(client, .delete, "/api/metrics/weight/\(twoDaysAgo)")
            #expect(removed.status == .noContent)
            let listed = try await routes.send(client, .get, "/api/metrics/daily")
            #expect(try routes.decode(List<DailyEntry>.self, listed).entries.isEmpty)
        }
        #expect(routes.store.published.map(\.version) == [1, 2])
        #expect(routes.store.published.last?.weightKg == nil, "the removal publishes the emptied day")
    }

    @Test("the daily list holds each recorded day of the last seven oldest first, with ketosis from the ketone level", arguments: TestToday.variety)
    func dailyList(day: TestToday) async throws {
        let routes = MetricsRoutesHarness(day)
        try await routes.withRoutes { client in
            for (daysAgo, level) in [(1, 1.2), (3, 0.3), (7, 2.0)] {
                let response = try await routes.send(
                    client, .post, "/api/metrics/ketones", #"{"date":"\#(day.date(daysAgo: daysAgo))","level":\#(level)}"#)
                #expect(response.status == .created)
            }
            _ = try await routes.send(client, .post, "/api/metrics/weight", #"{"date":"\#(day.date(daysAgo: 1))","weight":79}"#)
            let listed = try await routes.send(client, .get, "/api/metrics/daily")
            let list = try routes.decode(List<DailyEntry>.self, listed)
            #expect(list.from == day.date(daysAgo: 6) && list.to == day.date)
            #expect(
                list.entries == [
                    DailyEntry(date: day.date(daysAgo: 3), weightKg: nil, ketones: 0.3, inKetosis: false, version: 1),
                    DailyEntry(date: day.date(daysAgo: 1), weightKg: 79, ketones: 1.2, inKetosis: true, version: 2),
                ], "the day a week ago is outside the seven days")
        }
    }

    /// Day-independent: nothing is read.
    @Test("a request without the gateway's caller headers is 401 and reaches no store")
    func callerIsRequired() async throws {
        let routes = MetricsRoutesHarness(TestToday.weekdays[0])
        try await routes.withRoutes { client in
            let response = try await client.execute(uri: "/api/metrics/daily", method: .get)
            #expect(response.status == .unauthorized)
        }
        #expect(routes.store.published.isEmpty)
    }
}
