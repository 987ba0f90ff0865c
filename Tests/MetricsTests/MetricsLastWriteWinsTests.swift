import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import SyncContracts
import Testing

@testable import MetricsService

/// Last-write-wins on the metrics writes at the router level, on the in-memory store: `modifiedAt` decides, a stale
/// write answers the stored state with `conflict`, removals always apply, and every conflict is recorded.
@Suite("Metrics last-write-wins on an in-memory store")
struct MetricsLastWriteWinsTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    let userId = UUID()
    let store = InMemoryBodyMetricsStore(now: { MetricsLastWriteWinsTests.now })

    /// What a conflict answer shows.
    struct ConflictAnswer: Decodable {
        var date: String?
        var weightKg: Double?
        var level: Double?
        var version: Int
        var id: String?
        var deleted: Bool?
        var conflict: String?
    }

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "metrics", checks: [])
        MetricsController(store: store, now: { Self.now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    var headers: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString, .contentType: "application/json"]
    }

    func post(_ client: any TestClientProtocol, _ uri: String, _ json: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    func decode(_ response: TestResponse) throws -> ConflictAnswer {
        try JSONDecoder().decode(ConflictAnswer.self, from: Data(buffer: response.body))
    }

    @Test("a weight older than the stored one is not applied: 200 with the stored weight and stale_write_ignored, recorded, nothing published")
    func staleWeight() async throws {
        try await withRoutes { client in
            let newer = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":80,"modifiedAt":"2026-05-09T10:00:00Z"}"#)
            #expect(newer.status == .created)
            let older = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":85,"modifiedAt":"2026-05-09T09:00:00Z"}"#)
            #expect(older.status == .ok)
            let answer = try decode(older)
            #expect(answer.weightKg == 80 && answer.version == 1 && answer.conflict == "stale_write_ignored")
            let later = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":79,"modifiedAt":"2026-05-09T11:00:00Z"}"#)
            #expect(later.status == .ok)
            #expect(try decode(later).conflict == nil && decode(later).weightKg == 79)
        }
        #expect(store.published.map(\.weightKg) == [80, 79])
        #expect(store.conflicts.map(\.resolution) == [.staleWriteIgnored])
    }

    @Test("the same write sent again (same modifiedAt and body) answers the stored day and changes nothing")
    func replayIsUnchanged() async throws {
        let json = #"{"date":"2026-05-09","level":1.1,"modifiedAt":"2026-05-09T10:00:00Z"}"#
        try await withRoutes { client in
            #expect(try await post(client, "/api/metrics/ketones", json).status == .created)
            let again = try await post(client, "/api/metrics/ketones", json)
            #expect(again.status == .ok)
            #expect(try decode(again).version == 1 && decode(again).conflict == nil)
        }
        #expect(store.published.count == 1 && store.conflicts.isEmpty)
    }

    @Test("a removal older than the stored weight still applies and is recorded as deletion_overrode_edit")
    func removalAlwaysApplies() async throws {
        try await withRoutes { client in
            _ = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":80,"modifiedAt":"2026-05-09T10:00:00Z"}"#)
            let removed = try await client.execute(
                uri: "/api/metrics/weight/2026-05-09?modifiedAt=2026-05-09T08:00:00Z", method: .delete, headers: headers)
            #expect(removed.status == .noContent)
            let badStamp = try await client.execute(uri: "/api/metrics/ketones/2026-05-09?modifiedAt=yesterday", method: .delete, headers: headers)
            #expect(badStamp.status == .unprocessableContent)
        }
        #expect(store.published.map(\.weightKg) == [80, nil])
        #expect(store.conflicts.map(\.resolution) == [.deletionOverrodeEdit])
    }

    @Test("an edit older than the removal that emptied the day answers the tombstone with deletion_preserved; a newer one fills the day again")
    func emptiedDay() async throws {
        try await withRoutes { client in
            _ = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":80,"modifiedAt":"2026-05-09T10:00:00Z"}"#)
            _ = try await client.execute(
                uri: "/api/metrics/weight/2026-05-09?modifiedAt=2026-05-09T11:00:00Z", method: .delete, headers: headers)
            let stale = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":81,"modifiedAt":"2026-05-09T10:30:00Z"}"#)
            #expect(stale.status == .ok)
            let tombstone = try decode(stale)
            #expect(tombstone.id == "2026-05-09" && tombstone.deleted == true && tombstone.version == 2)
            #expect(tombstone.conflict == "deletion_preserved")
            let newer = try await post(client, "/api/metrics/weight", #"{"date":"2026-05-09","weight":82,"modifiedAt":"2026-05-09T12:00:00Z"}"#)
            #expect(newer.status == .created)
            #expect(try decode(newer).weightKg == 82 && decode(newer).version == 3)
        }
        #expect(store.conflicts.map(\.resolution) == [.deletionPreserved])
    }

    @Test("an unreadable modifiedAt is 422 naming it")
    func unreadableStamp() async throws {
        try await withRoutes { client in
            let response = try await post(client, "/api/metrics/weight", #"{"weight":80,"modifiedAt":"soon"}"#)
            #expect(response.status == .unprocessableContent)
            let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
            #expect(error.error.details.keys.contains("modifiedAt"))
        }
        #expect(store.published.isEmpty)
    }
}
