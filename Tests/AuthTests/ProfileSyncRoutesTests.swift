import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import SyncContracts
import Testing

@testable import AuthService

/// Last-write-wins on `PUT /api/users/profile` and the profile feed routes at the router level, on the in-memory
/// account store (the SQL is tested in `ProfileSyncTests`).
@Suite("Profile sync routes on an in-memory account store")
struct ProfileSyncRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    let userId = UUID()
    let sessionId = UUID()
    let store = InMemoryAccountStore()

    /// The answer fields the tests read.
    struct ProfileAnswer: Decodable {
        var dailyCalorieGoal: Int?
        var version: Int
        var conflict: String?
    }

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        store.addAccount(
            Profile(userId: userId, displayName: "Ada", updatedAt: Self.now, writeStamp: WriteStamp(Self.now, tiebreak: "")),
            passwordHash: "unused", sessionId: sessionId)
        let router = ServiceRuntime.makeRouter(service: "auth", checks: [])
        UserController(store: store, hasher: PasswordHasher(settings: .init(cost: 4, threads: 1, queueLimit: 1)), now: { Self.now })
            .addRoutes(to: router)
        ProfileSyncController(store: store, now: { Self.now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    var callerHeaders: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: sessionId.uuidString, .contentType: "application/json"]
    }

    func put(_ client: some TestClientProtocol, _ json: String) async throws -> TestResponse {
        try await client.execute(uri: "/api/users/profile", method: .put, headers: callerHeaders, body: ByteBuffer(string: json))
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(buffer: response.body))
    }

    @Test("a write older than the stored one answers 200 with the stored profile and conflict, and is listed")
    func staleWrite() async throws {
        try await withRoutes { client in
            let newer = try await put(client, #"{"dailyCalorieGoal":2000,"modifiedAt":"2026-05-10T12:01:00Z"}"#)
            #expect(try decode(ProfileAnswer.self, newer).conflict == nil)
            let older = try await put(client, #"{"dailyCalorieGoal":1500,"modifiedAt":"2026-05-10T12:00:30Z"}"#)
            #expect(older.status == .ok)
            let answer = try decode(ProfileAnswer.self, older)
            #expect(answer.conflict == "stale_write_ignored" && answer.dailyCalorieGoal == 2000 && answer.version == 2)
            let list = try await client.execute(uri: "/api/sync/profile/conflicts", method: .get, headers: callerHeaders)
            #expect(try decode(SyncConflictPage<JSONValue>.self, list).conflicts.map(\.resolution) == [.staleWriteIgnored])
        }
        #expect(store.published.map(\.version) == [2])
    }

    @Test("modifiedAt that is not a timestamp is 422 naming it")
    func invalidModifiedAt() async throws {
        try await withRoutes { client in
            let answer = try await put(client, #"{"dailyCalorieGoal":2000,"modifiedAt":"yesterday"}"#)
            #expect(answer.status == .unprocessableContent)
            #expect(Set(try decode(ErrorBody.self, answer).error.details.keys) == ["modifiedAt"])
        }
    }

    @Test("the feed answers the profile after a change and nothing after its cursor; 422 invalid_cursor (an empty one too), 422 limit")
    func feed() async throws {
        try await withRoutes { client in
            _ = try await put(client, #"{"dailyCalorieGoal":2000}"#)
            let page = try await client.execute(uri: "/api/sync/profile/changes?since=0", method: .get, headers: callerHeaders)
            #expect(page.status == .ok)
            let body = try decode(SyncChangePage<JSONValue>.self, page)
            #expect(body.changes.map(\.type) == ["profile"] && body.changes.first?.id == userId.uuidString.lowercased())
            #expect(body.changes.first?.version == 2 && !body.hasMore)
            let after = try await client.execute(
                uri: "/api/sync/profile/changes?since=\(body.nextCursor)", method: .get, headers: callerHeaders)
            #expect(try decode(SyncChangePage<JSONValue>.self, after).changes.isEmpty)

            for uri in ["/api/sync/profile/changes?since=-1", "/api/sync/profile/changes?since=", "/api/sync/profile/conflicts?cursor="] {
                let badCursor = try await client.execute(uri: uri, method: .get, headers: callerHeaders)
                #expect(badCursor.status == .unprocessableContent, "\(uri)")
                #expect(try decode(ErrorBody.self, badCursor).error.code == "invalid_cursor", "\(uri): an empty value is no cursor")
            }
            let badLimit = try await client.execute(uri: "/api/sync/profile/changes?limit=501", method: .get, headers: callerHeaders)
            #expect(badLimit.status == .unprocessableContent)
        }
    }

    @Test("the last-write-wins decision: newer applies, a replay keeps, an older one is ignored, newer same values restamp")
    func decisions() throws {
        let stored = WriteStamp(Self.now, tiebreak: "aa")
        let current = Profile(userId: userId, displayName: "Ada", updatedAt: Self.now, writeStamp: stored)
        var change = ProfileUpdate()
        change.dailyCalorieGoal = .value(2000)
        let later = WriteStamp(Self.now.addingTimeInterval(1), tiebreak: "bb")
        let earlier = WriteStamp(Self.now.addingTimeInterval(-1), tiebreak: "bb")
        guard case .revise(let revised) = try ProfileWrite.decide(change, stamp: later, current: current, now: Self.now) else {
            Issue.record("a newer change should apply")
            return
        }
        #expect(revised.writeStamp == later && revised.version == 2)
        #expect(try ProfileWrite.decide(change, stamp: stored, current: current, now: Self.now) == .keep)
        #expect(try ProfileWrite.decide(change, stamp: earlier, current: current, now: Self.now) == .ignoreStale)
        let same = ProfileUpdate()
        #expect(try ProfileWrite.decide(same, stamp: later, current: current, now: Self.now) == .restamp(later))
        #expect(try ProfileWrite.decide(same, stamp: earlier, current: current, now: Self.now) == .keep)
    }
}
