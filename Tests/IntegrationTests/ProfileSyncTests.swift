import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import Testing

/// The profile area of the changes feed and last-write-wins on profile writes, against the real schema: change
/// numbers in commit order, the 410 horizon, conflicts recorded and listed, and the account's sync rows forgotten
/// with it.
@Suite("Profile sync: changes feed, last-write-wins and conflicts", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct ProfileSyncTests {
    /// The feed page as the tests read it.
    struct Page: Decodable {
        struct Change: Decodable {
            var seq: Int64
            var type: String
            var id: String
            var version: Int
            var deleted: Bool
            var data: Data?
        }

        /// The profile fields the tests read.
        struct Data: Decodable {
            var displayName: String
            var dailyCalorieGoal: Int?
        }

        var changes: [Change]
        var nextCursor: String
        var hasMore: Bool
    }

    /// A profile answer, with its conflict marker.
    struct ProfileAnswer: Decodable {
        var dailyCalorieGoal: Int?
        var version: Int
        var conflict: String?
    }

    /// The conflict list as the tests read it.
    struct ConflictPage: Decodable {
        struct Conflict: Decodable {
            var type: String
            var entityId: String
            var resolution: String
            var winner: String
            var incoming: Incoming
        }

        /// The write's side of a conflict.
        struct Incoming: Decodable {
            var modifiedAt: String
            var data: Asked
        }

        /// What the write asked for.
        struct Asked: Decodable {
            var dailyCalorieGoal: Int?
        }

        var conflicts: [Conflict]
    }

    /// A `modifiedAt` value. Tests stamp writes after the registration (made at the clock's now), within the
    /// five minutes a client's clock may run ahead.
    static func iso(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }

    @Test("the feed answers the profile once per change, in change-number order; a bad cursor is 400, a bad limit 422, an expired one 410")
    func feed() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "feed@example.com", name: "Fay", form: .name)
            let token = session.accessToken
            let first = try await stack.gateway.call(.get, "/api/sync/profile/changes", token: token)
            #expect(first.status == .ok)
            let page = try first.decoded(Page.self)
            #expect(page.changes.count == 1 && page.hasMore == false)
            let change = try #require(page.changes.first)
            #expect(change.type == "profile" && change.id == session.user.id.uuidString.lowercased() && !change.deleted)
            #expect(change.version == 1 && change.data?.displayName == "Fay")
            #expect(page.nextCursor == String(change.seq))

            let nothing = try await stack.gateway.call(.get, "/api/sync/profile/changes?since=\(page.nextCursor)", token: token).decoded(Page.self)
            #expect(nothing.changes.isEmpty && nothing.nextCursor == page.nextCursor)

            #expect(try await stack.gateway.call(.put, "/api/users/profile", json: #"{"dailyCalorieGoal":2100}"#, token: token).status == .ok)
            let next = try await stack.gateway.call(.get, "/api/sync/profile/changes?since=\(page.nextCursor)&limit=5", token: token)
                .decoded(Page.self)
            #expect(next.changes.map(\.version) == [2] && next.changes.first?.data?.dailyCalorieGoal == 2100)
            #expect(try #require(next.changes.first).seq > change.seq)

            #expect(try await stack.gateway.call(.get, "/api/sync/profile/changes?since=abc", token: token).errorCode == "invalid_cursor")
            #expect(try await stack.gateway.call(.get, "/api/sync/profile/changes?limit=0", token: token).status == .unprocessableContent)

            try await stack.database.query("UPDATE sync_clocks SET expired_through = 5 WHERE user_id = \(session.user.id)")
            let expired = try await stack.gateway.call(.get, "/api/sync/profile/changes?since=1", token: token)
            #expect(expired.status == .gone && expired.errorCode == "sync_cursor_expired")
            #expect(try await stack.gateway.call(.get, "/api/sync/profile/changes?since=0", token: token).status == .ok)
        }
    }

    @Test("concurrent writes of one user: each applied write takes the next change number, and the latest modifiedAt wins")
    func concurrentWrites() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "race@example.com", form: .emailAndPasswordOnly)
            let token = session.accessToken
            let base = stack.clock.now().addingTimeInterval(10)
            let goals = Array(0..<8).map { 1500 + $0 * 10 }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, goal) in goals.enumerated() {
                    group.addTask {
                        let stamp = Self.iso(base.addingTimeInterval(Double(index)))
                        let answer = try await stack.gateway.call(
                            .put, "/api/users/profile", json: #"{"dailyCalorieGoal":\#(goal),"modifiedAt":"\#(stamp)"}"#, token: token)
                        #expect(answer.status == .ok)
                    }
                }
                try await group.waitForAll()
            }
            let final = try await stack.gateway.call(.get, "/api/users/profile", token: token).decoded(ProfileAnswer.self)
            #expect(final.dailyCalorieGoal == goals.last, "the write with the latest modifiedAt wins whatever the arrival order")

            let rows = try await stack.database.query(
                """
                SELECT p.change_seq, c.last_seq FROM profiles p JOIN sync_clocks c ON c.user_id = p.user_id
                WHERE p.user_id = \(session.user.id)
                """
            ).collect()
            let (profileSeq, lastSeq) = try #require(rows.first).decode((Int64, Int64).self)
            #expect(profileSeq == lastSeq, "the profile holds the user's latest change number")
            // Registration took 1; each applied write one more; stale ones none.
            #expect(lastSeq == Int64(final.version))
            let feed = try await stack.gateway.call(.get, "/api/sync/profile/changes?since=0", token: token).decoded(Page.self)
            #expect(feed.changes.map(\.seq) == [lastSeq])
        }
    }

    @Test("an older write is not applied: 200 with the stored profile and conflict, recorded and listed; a replay is not a conflict")
    func staleWriteIsRecorded() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "stale@example.com", form: .emailAndPasswordOnly)
            let token = session.accessToken
            let newer = Self.iso(stack.clock.now().addingTimeInterval(120))
            let older = Self.iso(stack.clock.now().addingTimeInterval(60))
            let applied = try await stack.gateway.call(
                .put, "/api/users/profile", json: #"{"dailyCalorieGoal":2000,"modifiedAt":"\#(newer)"}"#, token: token)
            let appliedAnswer = try applied.decoded(ProfileAnswer.self)
            #expect(appliedAnswer.dailyCalorieGoal == 2000 && appliedAnswer.conflict == nil && appliedAnswer.version == 2)

            let stale = try await stack.gateway.call(
                .put, "/api/users/profile", json: #"{"dailyCalorieGoal":1500,"modifiedAt":"\#(older)"}"#, token: token)
            #expect(stale.status == .ok)
            let staleAnswer = try stale.decoded(ProfileAnswer.self)
            #expect(staleAnswer.conflict == "stale_write_ignored" && staleAnswer.dailyCalorieGoal == 2000 && staleAnswer.version == 2)

            let replay = try await stack.gateway.call(
                .put, "/api/users/profile", json: #"{"dailyCalorieGoal":2000,"modifiedAt":"\#(newer)"}"#, token: token)
            #expect(try replay.decoded(ProfileAnswer.self).conflict == nil)

            let list = try await stack.gateway.call(.get, "/api/sync/profile/conflicts", token: token)
            #expect(list.status == .ok)
            let conflicts = try list.decoded(ConflictPage.self).conflicts
            #expect(conflicts.count == 1)
            let conflict = try #require(conflicts.first)
            #expect(conflict.type == "profile" && conflict.entityId == session.user.id.uuidString.lowercased())
            #expect(conflict.resolution == "stale_write_ignored" && conflict.winner == "stored")
            #expect(conflict.incoming.data.dailyCalorieGoal == 1500)
            #expect(try await stack.gateway.call(.get, "/api/sync/profile/conflicts?limit=101", token: token).status == .unprocessableContent)
            #expect(try await stack.gateway.call(.get, "/api/sync/profile/conflicts?cursor=nonsense", token: token).errorCode == "invalid_cursor")
        }
    }

    @Test("deleting the account forgets its change clock and conflicts")
    func deletionForgetsSyncRows() async throws {
        try await IdentityStack.run { stack in
            let session = try await stack.gateway.register(email: "gone@example.com", form: .emailAndPasswordOnly)
            let token = session.accessToken
            let newer = Self.iso(stack.clock.now().addingTimeInterval(120))
            let older = Self.iso(stack.clock.now().addingTimeInterval(60))
            _ = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"sex":"female","modifiedAt":"\#(newer)"}"#, token: token)
            _ = try await stack.gateway.call(.put, "/api/users/profile", json: #"{"sex":"male","modifiedAt":"\#(older)"}"#, token: token)
            func count(_ table: String) async throws -> Int {
                try await stack.database.query("SELECT count(*)::int FROM \(unescaped: table) WHERE user_id = \(session.user.id)")
                    .collect().first?.decode(Int.self) ?? -1
            }
            let clocksBefore = try await count("sync_clocks")
            let conflictsBefore = try await count("sync_conflicts")
            #expect(clocksBefore == 1 && conflictsBefore == 1)
            let deleted = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: token)
            #expect(deleted.status == .noContent)
            let clocksAfter = try await count("sync_clocks")
            let conflictsAfter = try await count("sync_conflicts")
            #expect(clocksAfter == 0 && conflictsAfter == 0)
        }
    }
}
