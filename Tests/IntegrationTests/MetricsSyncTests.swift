import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import ServiceDefaults
import Testing

@testable import MetricsService

/// The metrics service's part of offline-first sync, through the gateway on the real PostgreSQL and broker:
/// `Idempotency-Key` replays, the `metrics` area of the changes feed, last-write-wins, import and history retention.
@Suite("Metrics sync through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct MetricsSyncTests {
    /// 2026-03-10 08:00 UTC: the clock of these tests.
    static let start = Date(timeIntervalSince1970: 1_773_129_600)

    @Test("a replayed weigh-in with the same Idempotency-Key answers the first answer and writes once; another body with it is 422")
    func idempotentWeighIn() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            let key: HTTPFields = [MetricsIdempotencyHeaders.name: UUID().uuidString]
            let body = #"{"date":"2026-03-09","weight":81.5}"#
            let first = try await stack.gateway.call(.post, "/api/metrics/weight", json: body, token: token, headers: key)
            #expect(first.status == .created)
            let replay = try await stack.gateway.call(.post, "/api/metrics/weight", json: body, token: token, headers: key)
            #expect(replay.status == .created)
            #expect(replay.headers[MetricsIdempotencyHeaders.replayed] == "true")
            #expect(Data(buffer: replay.body) == Data(buffer: first.body))

            let daily = try await stack.gateway.call(.get, "/api/metrics/daily?days=7", token: token)
            #expect(try daily.decoded(MetricsVersionedDays.self).entries.map(\.version) == [1], "the replay wrote the day again")

            let reused = try await stack.gateway.call(
                .post, "/api/metrics/weight", json: #"{"date":"2026-03-09","weight":90}"#, token: token, headers: key)
            #expect(reused.status == .unprocessableContent)
            #expect(try reused.decoded(ErrorBodyFields.self).error.code == "idempotency_key_reused")
        }
    }

    @Test("the feed shows recorded days in commit order and an emptied day as a tombstone; conflicts are listed; stale writes are kept out")
    func feedAndLastWriteWins() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            let first = try await stack.gateway.call(
                .post, "/api/metrics/weight", json: #"{"date":"2026-03-08","weight":80,"modifiedAt":"2026-03-08T09:00:00Z"}"#, token: token)
            #expect(first.status == .created)
            _ = try await stack.gateway.call(.post, "/api/metrics/ketones", json: #"{"date":"2026-03-09","level":1.2}"#, token: token)
            let stale = try await stack.gateway.call(
                .post, "/api/metrics/weight", json: #"{"date":"2026-03-08","weight":90,"modifiedAt":"2026-03-08T08:00:00Z"}"#, token: token)
            #expect(stale.status == .ok)
            #expect(try stale.decoded(MetricsWriteConflict.self).conflict == "stale_write_ignored")
            #expect(try stale.decoded(MetricsWriteConflict.self).weightKg == 80)

            let full = try await stack.gateway.call(.get, "/api/sync/metrics/changes", token: token)
            #expect(full.status == .ok)
            let page = try full.decoded(MetricsFeedPage.self)
            #expect(page.changes.map(\.id) == ["2026-03-08", "2026-03-09"])
            #expect(page.changes.map(\.deleted) == [false, false] && page.hasMore == false)
            #expect(page.changes.first?.data?.weightKg == 80)

            let removed = try await stack.gateway.call(.delete, "/api/metrics/ketones/2026-03-09", token: token)
            #expect(removed.status == .noContent)
            let next = try await stack.gateway.call(.get, "/api/sync/metrics/changes?since=\(page.nextCursor)", token: token)
            let after = try next.decoded(MetricsFeedPage.self)
            #expect(after.changes.map(\.id) == ["2026-03-09"])
            #expect(after.changes.first?.deleted == true && after.changes.first?.deletedAt != nil && after.changes.first?.data == nil)
            #expect(after.changes.first?.version == 2)

            let limited = try await stack.gateway.call(.get, "/api/sync/metrics/changes?limit=1", token: token)
            let one = try limited.decoded(MetricsFeedPage.self)
            #expect(one.changes.count == 1 && one.hasMore)
            #expect(try await stack.gateway.call(.get, "/api/sync/metrics/changes?since=abc", token: token).status == .unprocessableContent)
            #expect(try await stack.gateway.call(.get, "/api/sync/metrics/changes?limit=501", token: token).status == .unprocessableContent)

            let conflicts = try await stack.gateway.call(.get, "/api/sync/metrics/conflicts", token: token)
            #expect(conflicts.status == .ok)
            let listed = try conflicts.decoded(MetricsConflictList.self).conflicts
            #expect(listed.map(\.resolution) == ["stale_write_ignored"] && listed.map(\.entityId) == ["2026-03-08"])
        }
    }

    @Test("import: created, updated, already present and rejected per item; a repeated import creates nothing; an empty list is 422")
    func importWeighIns() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            _ = try await stack.gateway.call(
                .post, "/api/metrics/weight", json: #"{"date":"2026-03-07","weight":70,"modifiedAt":"2026-03-07T08:00:00Z"}"#, token: token)
            let json = """
                {"weighIns": [
                  {"date": "2026-03-05", "weight": 81.2, "modifiedAt": "2026-03-05T07:00:00Z"},
                  {"date": "2026-03-07", "weight": 71, "modifiedAt": "2026-03-07T09:00:00Z"},
                  {"date": "2026-03-06", "weight": 5000},
                  {"date": "2026-03-04", "weight": "heavy"}
                ]}
                """
            let first = try await stack.gateway.call(.post, "/api/sync/metrics/import", json: json, token: token)
            #expect(first.status == .ok)
            let results = try first.decoded(MetricsImportResults.self).results
            #expect(results.map(\.id) == ["2026-03-05", "2026-03-07", "2026-03-06", "2026-03-04"])
            #expect(results.map(\.status) == ["created", "updated", "rejected", "rejected"])
            #expect(results[2].error?.code == "validation_failed" && results[2].error?.details["weight"] != nil)
            #expect(results[3].error?.code == "validation_failed")

            let again = try await stack.gateway.call(.post, "/api/sync/metrics/import", json: json, token: token)
            #expect(
                try again.decoded(MetricsImportResults.self).results.map(\.status) == ["already_present", "already_present", "rejected", "rejected"])
            let daily = try await stack.gateway.call(.get, "/api/metrics/daily?days=30", token: token)
            let days = try daily.decoded(MetricsVersionedDays.self).entries
            #expect(days.map(\.date) == ["2026-03-05", "2026-03-07"] && days.map(\.version) == [1, 2], "the repeated import wrote again")

            let empty = try await stack.gateway.call(.post, "/api/sync/metrics/import", json: #"{"weighIns":[]}"#, token: token)
            #expect(empty.status == .unprocessableContent)
        }
    }

    @Test("history retention empties the days before today minus N in the user's zone: gone from the lists, tombstoned in the feed")
    func historyRetention() async throws {
        try await TrackingStack.run(start: Self.start) { stack in
            let (token, userId) = try await stack.signUp()
            for date in ["2026-03-01", "2026-03-05", "2026-03-09"] {
                _ = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"date":"\#(date)","weight":80}"#, token: token)
            }
            let profiles = MetricsProfileRepository()
            try await stack.metricsDatabase.withConnection { connection in
                try await profiles.save(
                    UserProfileUpdated(userId: userId, displayName: "t", dietPreference: "balanced", historyRetentionDays: 5, version: 1_000),
                    on: connection, logger: TestEnvironment.logger)
            }
            let purge = HistoryRetentionPurge(client: stack.metricsDatabase, days: DailyMetricsRepository(), profiles: profiles, batchSize: 1)
            #expect(try await purge.purge(now: stack.clock.now(), logger: TestEnvironment.logger) == 1)
            #expect(try await purge.purge(now: stack.clock.now(), logger: TestEnvironment.logger) == 0, "a second run removed again")

            let daily = try await stack.gateway.call(.get, "/api/metrics/daily?days=30", token: token)
            #expect(try daily.decoded(MetricsVersionedDays.self).entries.map(\.date) == ["2026-03-05", "2026-03-09"])
            let feed = try await stack.gateway.call(.get, "/api/sync/metrics/changes", token: token)
            let changes = try feed.decoded(MetricsFeedPage.self).changes
            #expect(changes.filter(\.deleted).map(\.id) == ["2026-03-01"])
            #expect(changes.filter { !$0.deleted }.map(\.id).sorted() == ["2026-03-05", "2026-03-09"])
        }
    }
}

/// The answer of `POST /api/sync/metrics/import`.
struct MetricsImportResults: Decodable, Sendable {
    struct Result: Decodable, Sendable {
        struct Problem: Decodable, Sendable {
            var code: String
            var details: [String: String]
        }

        var id: String
        var status: String
        var error: Problem?
    }

    var results: [Result]
}

/// A write answer that may carry `conflict`.
struct MetricsWriteConflict: Decodable, Sendable {
    var weightKg: Double?
    var conflict: String?
}

/// A page of `GET /api/sync/metrics/changes`.
struct MetricsFeedPage: Decodable, Sendable {
    struct Change: Decodable, Sendable {
        var seq: Int64
        var type: String
        var id: String
        var version: Int
        var deleted: Bool
        var deletedAt: Date?
        var data: MetricsVersionedDays.Day?
    }

    var changes: [Change]
    var nextCursor: String
    var hasMore: Bool
}

/// A page of `GET /api/sync/metrics/conflicts`.
struct MetricsConflictList: Decodable, Sendable {
    struct Conflict: Decodable, Sendable {
        var entityId: String
        var resolution: String
    }

    var conflicts: [Conflict]
}

/// The header names of `Idempotency-Key` replays.
enum MetricsIdempotencyHeaders {
    static let name = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!
}

/// The dates and versions of `GET /api/metrics/daily`.
struct MetricsVersionedDays: Decodable, Sendable {
    struct Day: Decodable, Sendable {
        var date: String
        var weightKg: Double?
        var version: Int
    }

    var entries: [Day]
}
