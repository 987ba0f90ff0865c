import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Synchronization
import Testing

@testable import AuthService

/// The profile and account-deletion routes at the router level, on the in-memory account store and a real (cheap)
/// bcrypt hasher: statuses, validation and what each change publishes.
@Suite("User routes on an in-memory account store")
struct UserRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    let userId = UUID()
    let sessionId = UUID()
    let store = InMemoryAccountStore()
    let hasher = PasswordHasher(settings: .init(cost: 4, threads: 1, queueLimit: 8))

    /// The subset of a profile answer the tests read.
    struct ProfileAnswer: Decodable, Equatable {
        var displayName: String
        var dailyCalorieGoal: Int?
        var timeZone: String
        var version: Int
    }

    /// Runs `body` against the user routes, with the hasher running and one account (password "correct horse").
    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await hasher.run() }
            defer { group.cancelAll() }
            var passwordHash: String?
            while passwordHash == nil {
                // The hasher refuses work until `run` has started its threads.
                passwordHash = try? await hasher.hash("correct horse")
                if passwordHash == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            store.addAccount(Profile(userId: userId, displayName: "Ada", updatedAt: Self.now), passwordHash: passwordHash!, sessionId: sessionId)
            let router = ServiceRuntime.makeRouter(service: "auth", checks: [])
            UserController(store: store, hasher: hasher, now: { Self.now }).addRoutes(to: router)
            try await Application(router: router).test(.router) { client in
                let problems = try await ContractCheckingClient.problems(of: client, body)
                #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
            }
        }
    }

    var callerHeaders: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: sessionId.uuidString, .contentType: "application/json"]
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    @Test("the caller's profile is 200 while the session is active and 401 session_ended once it has ended")
    func profileNeedsAnActiveSession() async throws {
        try await withRoutes { client in
            let answer = try await client.execute(uri: "/api/users/profile", method: .get, headers: callerHeaders)
            #expect(answer.status == .ok)
            #expect(try decode(ProfileAnswer.self, answer) == ProfileAnswer(displayName: "Ada", dailyCalorieGoal: nil, timeZone: "UTC", version: 1))

            store.endSession(sessionId)
            let ended = try await client.execute(uri: "/api/users/profile", method: .get, headers: callerHeaders)
            #expect(ended.status == .unauthorized)
            #expect(try decode(ErrorBody.self, ended).error.code == "session_ended")
        }
    }

    @Test("a change gets the next version and one user.profile_updated; the same values again write nothing")
    func profileChangeIsPublishedOnce() async throws {
        try await withRoutes { client in
            let change = #"{"dailyCalorieGoal":2100,"timeZone":"Europe/Berlin"}"#
            let first = try await client.execute(uri: "/api/users/profile", method: .put, headers: callerHeaders, body: ByteBuffer(string: change))
            #expect(first.status == .ok)
            #expect(
                try decode(ProfileAnswer.self, first)
                    == ProfileAnswer(displayName: "Ada", dailyCalorieGoal: 2100, timeZone: "Europe/Berlin", version: 2))

            let again = try await client.execute(uri: "/api/users/profile", method: .put, headers: callerHeaders, body: ByteBuffer(string: change))
            #expect(again.status == .ok)
            #expect(try decode(ProfileAnswer.self, again).version == 2)
        }
        #expect(store.published.map(\.type) == ["user.profile_updated"])
        #expect(store.published.first?.version == 2)
    }

    @Test("invalid fields answer 422 naming each one, and the profile is neither changed nor published")
    func invalidProfileChangesNothing() async throws {
        try await withRoutes { client in
            let answer = try await client.execute(
                uri: "/api/users/profile", method: .put, headers: callerHeaders,
                body: ByteBuffer(string: #"{"dailyCalorieGoal":-5,"timeZone":"Mars/Olympus","sex":"robot"}"#))
            #expect(answer.status == .unprocessableContent)
            let error = try decode(ErrorBody.self, answer)
            #expect(error.error.code == "validation_failed")
            #expect(Set(error.error.details.keys) == ["dailyCalorieGoal", "timeZone", "sex"])
        }
        #expect(store.published.isEmpty)
        #expect(store.storedProfile(of: userId)?.version == 1)
    }

    @Test(
        "day-count settings: absent keeps it, a number sets it (and is published), null clears it, out of range is 422 naming it",
        arguments: [("historyRetentionDays", 36_500), ("deletePhotosAfterDays", 3_650)])
    func dayCountSetting(field: String, maximum: Int) async throws {
        /// The setting as the profile answers it.
        @Sendable func setting(_ response: TestResponse) throws -> Int? {
            let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            return object?[field] as? Int
        }
        @Sendable func published() -> Int? {
            let event = store.storedProfile(of: userId)?.event
            return field == "historyRetentionDays" ? event?.historyRetentionDays : event?.deletePhotosAfterDays
        }
        try await withRoutes { client in
            // Each write a second later than the one before, so last-write-wins orders them as sent.
            let written = Mutex(0)
            func put(_ json: String) async throws -> TestResponse {
                let second = written.withLock { count in
                    count += 1
                    return count
                }
                let stamped = json.dropLast() + #","modifiedAt":"2026-05-10T12:00:0\#(second)Z"}"#
                return try await client.execute(
                    uri: "/api/users/profile", method: .put, headers: callerHeaders, body: ByteBuffer(string: String(stamped)))
            }
            let initial = try await client.execute(uri: "/api/users/profile", method: .get, headers: callerHeaders)
            #expect(try setting(initial) == nil, "unset by default")

            let set = try await put(#"{"\#(field)":90}"#)
            #expect(set.status == .ok)
            #expect(try setting(set) == 90)
            #expect(published() == 90, "the event carries it")

            let kept = try await put(#"{"dailyCalorieGoal":2000}"#)
            #expect(try setting(kept) == 90, "absent keeps it")

            for bad in ["0", String(maximum + 1), "-3"] {
                let refused = try await put(#"{"\#(field)":\#(bad)}"#)
                #expect(refused.status == .unprocessableContent)
                #expect(Set(try decode(ErrorBody.self, refused).error.details.keys) == [field])
            }

            let cleared = try await put(#"{"\#(field)":null}"#)
            #expect(cleared.status == .ok)
            #expect(try setting(cleared) == nil && published() == nil)
        }
        #expect(store.published.map(\.version) == [2, 3, 4])
    }

    @Test("deletion with a wrong password is 403 and keeps the account; with the right one it is 204, published once, and the session ends")
    func accountDeletion() async throws {
        try await withRoutes { client in
            let wrong = try await client.execute(
                uri: "/api/users/me", method: .delete, headers: callerHeaders, body: ByteBuffer(string: #"{"password":"wrong horse"}"#))
            #expect(wrong.status == .forbidden)
            #expect(try decode(ErrorBody.self, wrong).error.code == "wrong_password")
            #expect(store.published.isEmpty && store.storedProfile(of: userId) != nil)

            let right = try await client.execute(
                uri: "/api/users/me", method: .delete, headers: callerHeaders, body: ByteBuffer(string: #"{"password":"correct horse"}"#))
            #expect(right.status == .noContent)
            let after = try await client.execute(uri: "/api/users/profile", method: .get, headers: callerHeaders)
            #expect(after.status == .unauthorized)
        }
        #expect(store.published.map(\.type) == ["user.deleted"])
        #expect(store.storedProfile(of: userId) == nil)
    }
}
