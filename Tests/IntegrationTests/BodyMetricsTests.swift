import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import ServiceDefaults
import Testing

/// Weight and ketones through the gateway: one record per day, units, validation, events, purge.
@Suite("Body metrics through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct BodyMetricsTests {
    /// 2026-03-10 08:00 UTC: the clock of these tests.
    static let start = Date(timeIntervalSince1970: 1_773_129_600)

    @Test("one weight per day: a second entry updates it; kg are stored, lbs answered when asked or preferred")
    func weightPerDay() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            let first = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":82.5,"notes":"after run"}"#, token: token)
            #expect(first.status == .created)
            let entry = try first.decoded(WeightAnswer.self)
            #expect(entry.date == "2026-03-10" && entry.weight == 82.5 && entry.unit == "kg" && entry.version == 1)
            #expect(first.headers[.eTag] == "\"1\"")

            let second = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":180,"unit":"lbs"}"#, token: token)
            #expect(second.status == .ok)
            let updated = try second.decoded(WeightAnswer.self)
            #expect(updated.weight == 180 && updated.unit == "lbs" && updated.weightKg == 81.65 && updated.version == 2)
            #expect(updated.notes == "after run", "an entry without notes keeps the day's notes")

            _ = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"date":"2026-03-08","weight":83.1}"#, token: token)
            let list = try await stack.gateway.call(.get, "/api/metrics/weight?days=30", token: token)
            let weights = try list.decoded(WeightList.self)
            #expect(weights.entries.map(\.date) == ["2026-03-08", "2026-03-10"])
            #expect(weights.entries.map(\.weight) == [83.1, 81.65])
            #expect(weights.from == "2026-02-09" && weights.to == "2026-03-10")
            let inPounds = try await stack.gateway.call(.get, "/api/metrics/weight?days=2&unit=lbs", token: token)
            #expect(try inPounds.decoded(WeightList.self).entries.map(\.weight) == [180])

            let profile = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"weightUnit":"lbs"}"#, token: token)
            #expect(profile.status == .ok)
            let preferred = try await stack.eventually("/api/metrics/weight?days=7", token: token, as: WeightList.self) {
                $0.entries.first?.unit == "lbs"
            }
            #expect(preferred.entries.map(\.weight) == [183.2, 180], "the preferred unit did not reach the metrics service")
        }
    }

    @Test("ketones with inKetosis above 0.5 mmol/L, and the daily view of both")
    func ketonesAndDaily() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            for (date, level) in [("2026-03-08", 0.4), ("2026-03-09", 0.5), ("2026-03-10", 1.8)] {
                let logged = try await stack.gateway.call(
                    .post, "/api/metrics/ketones", json: #"{"date":"\#(date)","level":\#(level)}"#, token: token)
                #expect(logged.status == .created)
            }
            _ = try await stack.gateway.call(
                .post, "/api/metrics/weight", json: #"{"date":"2026-03-09","weight":80,"notes":"keto day 3"}"#, token: token)
            let daily = try await stack.gateway.call(.get, "/api/metrics/daily?days=7", token: token)
            let days = try daily.decoded(DailyList.self).entries
            #expect(days.map(\.date) == ["2026-03-08", "2026-03-09", "2026-03-10"])
            #expect(days.map(\.inKetosis) == [false, false, true])
            #expect(days.map(\.ketones) == [0.4, 0.5, 1.8])
            #expect(days[1].weight == 80 && days[1].notes == "keto day 3")
            #expect(days[0].weight == nil && days[2].weight == nil)
            let twoDays = try await stack.gateway.call(.get, "/api/metrics/daily?days=2", token: token)
            #expect(try twoDays.decoded(DailyList.self).entries.count == 2)
        }
    }

    @Test("out-of-range values and future dates answer 422 naming the field; nothing is stored")
    func validation() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            let cases: [(String, String, String)] = [
                ("/api/metrics/weight", #"{"weight":19.9}"#, "weight"),
                ("/api/metrics/weight", #"{"weight":500.1}"#, "weight"),
                ("/api/metrics/weight", #"{"weight":1200,"unit":"lbs"}"#, "weight"),
                ("/api/metrics/weight", #"{"weight":80,"unit":"stone"}"#, "unit"),
                ("/api/metrics/weight", #"{"weight":80,"date":"2026-03-11"}"#, "date"),
                ("/api/metrics/weight", #"{"weight":80,"date":"2026-02-30"}"#, "date"),
                ("/api/metrics/weight", #"{"weight":80,"notes":"\#(String(repeating: "x", count: 501))"}"#, "notes"),
                ("/api/metrics/ketones", #"{"level":10.5}"#, "level"),
                ("/api/metrics/ketones", #"{"level":-0.1}"#, "level"),
                ("/api/metrics/ketones", #"{"level":1,"date":"2027-01-01"}"#, "date"),
            ]
            for (uri, json, field) in cases {
                let response = try await stack.gateway.call(.post, uri, json: json, token: token)
                #expect(response.status == .unprocessableContent, "\(json) answered \(response.status)")
                let error = try response.decoded(ErrorBodyFields.self).error
                #expect(error.code == "validation_failed" && error.details[field] != nil, "\(json) did not name \(field): \(error)")
            }
            let unreadable = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":"heavy"}"#, token: token)
            #expect(unreadable.status == .unprocessableContent)
            #expect(try unreadable.decoded(ErrorBodyFields.self).error.details == ["weight": "must be a number"])
            let missing = try await stack.gateway.call(.post, "/api/metrics/ketones", json: "{}", token: token)
            #expect(missing.status == .unprocessableContent)
            #expect(try missing.decoded(ErrorBodyFields.self).error.details == ["level": "is required"])
            let misspelt = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":70,"unti":"kg"}"#, token: token)
            #expect(misspelt.status == .unprocessableContent)
            #expect(try misspelt.decoded(ErrorBodyFields.self).error.code == "unknown_field")
            let badDays = try await stack.gateway.call(.get, "/api/metrics/daily?days=0", token: token)
            #expect(badDays.status == .unprocessableContent)
            let daily = try await stack.gateway.call(.get, "/api/metrics/daily?days=366", token: token)
            #expect(try daily.decoded(DailyList.self).entries.isEmpty, "a refused entry was stored")
        }
    }

    @Test("removing a weight answers 204, then 404 (422 for a day that cannot be); every change publishes the day's full record with a new version")
    func removalAndEvents() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, userId) = try await stack.signUp()
            _ = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":70,"notes":"morning"}"#, token: token)
            _ = try await stack.gateway.call(.post, "/api/metrics/ketones", json: #"{"level":0.9}"#, token: token)
            #expect(try await stack.gateway.call(.delete, "/api/metrics/weight/2026-03-10", token: token).status == .noContent)
            #expect(try await stack.gateway.call(.delete, "/api/metrics/weight/2026-03-10", token: token).status == .notFound)
            #expect(try await stack.gateway.call(.delete, "/api/metrics/weight/not-a-day", token: token).status == .unprocessableContent)
            #expect(try await stack.gateway.call(.delete, "/api/metrics/ketones/2026-03-10", token: token).status == .noContent)

            // The marker: a weigh-in on another day, written after them, published behind them.
            let marker = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"date":"2026-03-09","weight":71}"#, token: token)
            #expect(marker.status == .created)
            let messages = try await publishedEvents(
                subject: userId.uuidString.lowercased(), topic: .weightLogged,
                upTo: .marker { (try? EventCoding.decode(WeightLogged.self, from: $0).data.date) == "2026-03-09" })
            let events = try messages.map { try EventCoding.decode(WeightLogged.self, from: $0).data }.sorted { $0.version < $1.version }
            #expect(events.map(\.version) == [1, 2, 3, 4])
            #expect(events.allSatisfy { $0.date == "2026-03-10" && $0.userId == userId })
            #expect(events.map(\.weightKg) == [70, 70, nil, nil])
            #expect(events.map(\.ketonesMmolPerLiter) == [nil, 0.9, 0.9, nil])
            #expect(events.map(\.notes) == ["morning", "morning", "morning", nil], "an emptied day keeps no notes")
        }
    }

    @Test("user.deleted purges the user's days and only theirs")
    func purge() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let leaving = try await stack.gateway.register(email: "leaving-\(UUID().uuidString.prefix(8))@example.com")
            let (staying, stayingId) = try await stack.signUp("staying")
            #expect(
                try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":70}"#, token: leaving.accessToken).status == .created)
            #expect(try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":90}"#, token: staying).status == .created)
            #expect(try await userRows(in: "daily_metrics", of: leaving.user.id, client: stack.metricsDatabase) == 1, "the day is there before")
            #expect(try await userRows(in: "daily_metrics", of: stayingId, client: stack.metricsDatabase) == 1)
            let gone = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: leaving.accessToken)
            #expect(gone.status == .noContent)
            let purged = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                try await userRows(in: "daily_metrics", of: leaving.user.id, client: stack.metricsDatabase) == 0
            }
            #expect(purged, "the leaving user's days were not purged")
            #expect(try await userRows(in: "daily_metrics", of: stayingId, client: stack.metricsDatabase) == 1)
        }
    }
}

struct WeightAnswer: Decodable, Sendable {
    var date: String
    var weight: Double
    var unit: String
    var weightKg: Double
    var notes: String?
    var version: Int
}

struct WeightList: Decodable, Sendable {
    var from: String
    var to: String
    var entries: [WeightAnswer]
}

struct DailyList: Decodable, Sendable {
    struct Day: Decodable, Sendable {
        var date: String
        var weight: Double?
        var ketones: Double?
        var inKetosis: Bool?
        var notes: String?
    }

    var entries: [Day]
}
