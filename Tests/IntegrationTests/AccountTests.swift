import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import AuthService

@Suite("Identity: registration, sign-in and profiles through the gateway", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct AccountTests {
    @Test("registration answers 201 with tokens, the user and the default profile; the email is unique whatever its case")
    func registration() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "  Ada@Example.com ", name: "Ada")
            #expect(session.user.email == "Ada@Example.com")
            #expect(session.user.displayName == "Ada")
            #expect(session.profile.dietPreference == "balanced" && session.profile.weightUnit == "kg" && session.profile.timeZone == "UTC")
            #expect(session.token == session.accessToken)
            #expect(session.refreshToken.count >= 43, "at least 256 bits")

            let again = try await stack.gateway.call(
                .post, "/api/auth/register", json: #"{"email":"ada@EXAMPLE.com","password":"another password","displayName":"Eve"}"#)
            #expect(again.status == .conflict)
            #expect(again.errorCode == "email_taken")

            let invalid = try await stack.gateway.call(
                .post, "/api/auth/register", json: #"{"email":"not-an-email","password":"short","displayName":" "}"#)
            #expect(invalid.status == .unprocessableContent)
            let fields = try invalid.decoded(ErrorBodyFields.self).error.details
            #expect(Set(fields.keys) == ["email", "password", "displayName"])

            let malformed = try await stack.gateway.call(.post, "/api/auth/register", json: #"{"email":"x@y.z""#)
            #expect(malformed.status == .badRequest)
            #expect(malformed.errorCode == "malformed_body")
        }
    }

    @Test("long passwords count in full: a 300-byte password works, and one differing after byte 72 does not")
    func longPasswords() async throws {
        try await IdentityStack.run { stack in
            let long = String(repeating: "p", count: 100) + String(repeating: "é", count: 100)
            _ = try await stack.gateway.register(email: "long@example.com", password: long)
            #expect(try await stack.gateway.login(email: "long@example.com", password: long).status == .ok)
            let sameFirst72 = String(long.prefix(72)) + String(repeating: "x", count: 50)
            #expect(try await stack.gateway.login(email: "long@example.com", password: sameFirst72).status == .unauthorized)
            let tooLong = String(repeating: "a", count: 1025)
            let refused = try await stack.gateway.call(
                .post, "/api/auth/register", json: #"{"email":"huge@example.com","password":"\#(tooLong)","displayName":"H"}"#)
            #expect(refused.status == .unprocessableContent)
        }
    }

    @Test("a wrong password and an unknown email get the same 401; repeated failures lock the account with backoff")
    func signInFailures() async throws {
        try await IdentityStack.run { stack in
            _ = try await stack.gateway.register(email: "bob@example.com")
            let wrong = try await stack.gateway.login(email: "bob@example.com", password: "wrong password")
            let unknown = try await stack.gateway.login(email: "nobody@example.com", password: "wrong password")
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong.errorCode == "invalid_credentials" && unknown.errorCode == "invalid_credentials")
            #expect(try wrong.decoded(ErrorBodyFields.self).error.message == unknown.decoded(ErrorBodyFields.self).error.message)

            // Guesses from many addresses: the per-account throttle still applies (four more failures make five).
            for index in 0..<4 {
                let guess = try await stack.gateway.login(
                    email: "BOB@example.com", password: "guess \(index)", headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.\(index)"])
                #expect(guess.status == .unauthorized)
            }
            let locked = try await stack.gateway.login(email: "bob@example.com", headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.99"])
            #expect(locked.status == .tooManyRequests)
            #expect(locked.errorCode == "too_many_attempts")
            #expect(Int(locked.headers[.retryAfter] ?? "") == 30)

            stack.clock.advance(by: 31)
            let after = try await stack.gateway.login(email: "bob@example.com", headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.98"])
            #expect(after.status == .ok, "the lock lifts after its backoff and the right password works")
        }
    }

    @Test("profile and goals: partial updates, every invalid field named, unit conversion, and a user.profile_updated event per change")
    func profile() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "carol@example.com", name: "Carol")
            let token = session.accessToken
            let updated = try await stack.gateway.call(
                .put, "/api/users/profile",
                json: #"{"dietPreference":"keto","dailyCalorieGoal":1800,"weightUnit":"lbs","targetWeight":154,"timeZone":"Europe/Berlin"}"#,
                token: token)
            #expect(updated.status == .ok)
            let profile = try updated.decoded(ProfileFields.self)
            #expect(profile.dietPreference == "keto" && profile.dailyCalorieGoal == 1800 && profile.timeZone == "Europe/Berlin")
            #expect(profile.targetWeight == 154 && profile.weightUnit == "lbs" && profile.version == 2)
            #expect(profile.displayName == "Carol", "absent fields keep their value")

            let bad = try await stack.gateway.call(
                .put, "/api/users/profile",
                json: #"{"dietPreference":"carnivore","dailyCalorieGoal":-5,"timeZone":"Mars/Base","weightUnit":"stone","birthDate":"2999-01-01"}"#,
                token: token)
            #expect(bad.status == .unprocessableContent)
            let fields = try bad.decoded(ErrorBodyFields.self).error.details
            #expect(Set(fields.keys) == ["dietPreference", "dailyCalorieGoal", "timeZone", "weightUnit", "birthDate"])

            let custom = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"dietPreference":"custom"}"#, token: token)
            #expect(custom.status == .unprocessableContent)
            let badSplit = try await stack.gateway.call(
                .put, "/api/users/profile",
                json: #"{"dietPreference":"custom","customMacros":{"proteinPercent":30,"carbsPercent":30,"fatPercent":30}}"#, token: token)
            #expect(try badSplit.decoded(ErrorBodyFields.self).error.details["customMacros"] != nil)
            let goodSplit = try await stack.gateway.call(
                .put, "/api/users/profile",
                json: #"{"dietPreference":"custom","customMacros":{"proteinPercent":30,"carbsPercent":10,"fatPercent":60},"dailyCalorieGoal":null}"#,
                token: token)
            #expect(goodSplit.status == .ok)
            let afterSplit = try goodSplit.decoded(ProfileFields.self)
            #expect(afterSplit.dailyCalorieGoal == nil && afterSplit.version == 3)

            let fetched = try await stack.gateway.call(.get, "/api/users/profile", token: token).decoded(ProfileFields.self)
            #expect(fetched.version == 3 && fetched.dietPreference == "custom")

            let events = try await stack.database.query(
                "SELECT count(*) FROM outbox WHERE topic = 'user.profile_updated' AND message_key = \(session.user.id.uuidString.lowercased())"
            ).collect().first?.decode(Int.self)
            #expect(events == 3, "registration and two accepted changes; refused updates emit nothing")
        }
    }

    @Test("historyRetentionDays is stored, answered and published; null clears it")
    func historyRetention() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "ret@example.com", form: .emailAndPasswordOnly)
            let token = session.accessToken
            let set = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"historyRetentionDays":90}"#, token: token)
            #expect(set.status == .ok)
            let fetched = try await stack.gateway.call(.get, "/api/users/profile", token: token).decoded(RetentionFields.self)
            #expect(fetched.historyRetentionDays == 90)
            let published = try await stack.database.query(
                """
                SELECT (convert_from(payload, 'UTF8')::jsonb -> 'data' ->> 'historyRetentionDays')::int FROM outbox
                WHERE topic = 'user.profile_updated' AND message_key = \(session.user.id.uuidString.lowercased()) ORDER BY id DESC LIMIT 1
                """
            ).collect().first?.decode(Int?.self)
            #expect(published == 90)

            let cleared = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"historyRetentionDays":null}"#, token: token)
            #expect(try cleared.decoded(RetentionFields.self).historyRetentionDays == nil)
            let refetched = try await stack.gateway.call(.get, "/api/users/profile", token: token).decoded(RetentionFields.self)
            #expect(refetched.historyRetentionDays == nil)
        }
    }
}

/// The retention setting of a profile answer.
struct RetentionFields: Decodable {
    var historyRetentionDays: Int?
}

/// The error shape with its details.
struct ErrorBodyFields: Decodable {
    struct Payload: Decodable {
        var code: String
        var message: String
        var details: [String: String]
    }

    var error: Payload
}

/// The profile fields the tests read.
struct ProfileFields: Decodable {
    var displayName: String
    var dietPreference: String
    var dailyCalorieGoal: Int?
    var targetWeight: Double?
    var weightUnit: String
    var timeZone: String
    var version: Int
}
