import EventContracts
import Foundation
import Messaging
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing

@testable import TrendsService

/// The trends handler's batch path against applying the same events one by one: the read models must end the same.
@Suite("Trends projection in batches", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct TrendsBatchProjectionTests {
    /// 2026-03-10 15:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_773_154_800)

    @Test("reordered, repeated and stale copies, deletions and unconsumes in one batch end as they do one by one")
    func reorderedWithinABatch() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let states = try await ProjectionReplay(database: stack.database).endStates { ids in
                let (user, other, third) = (ids.users[0], ids.users[1], ids.users[2])
                let m = ids.meals
                func consumed(_ meal: UUID, _ day: String, _ calories: Double, _ version: Int, of owner: UUID? = nil) throws -> ReceivedEvent {
                    let snapshot = TestMeals.snapshot(meal, of: owner ?? user, on: day, calories: calories, version: version)
                    return try ProjectionReplay.event(MealConsumed(meal: snapshot), of: owner ?? user)
                }
                func analyzed(_ meal: UUID, _ day: String, _ calories: Double, _ version: Int) throws -> ReceivedEvent {
                    let snapshot = TestMeals.snapshot(meal, of: user, on: day, calories: calories, consumed: false, version: version)
                    return try ProjectionReplay.event(MealAnalyzed(meal: snapshot), of: user)
                }
                func deleted(_ meal: UUID, _ reason: String, _ version: Int) throws -> ReceivedEvent {
                    try ProjectionReplay.event(MealDeleted(mealId: meal, userId: user, reason: reason, version: version), of: user)
                }
                let before = [
                    try consumed(m[0], "2026-03-05", 500, 1), try consumed(m[1], "2026-03-06", 200, 1), try analyzed(m[7], "2026-03-07", 164, 1),
                ]
                let batch = [
                    // Moved to the next day, with a stale copy and a second copy of the newest version behind it.
                    try consumed(m[0], "2026-03-06", 700, 3), try consumed(m[0], "2026-03-05", 600, 2), try consumed(m[0], "2026-03-06", 999, 3),
                    try consumed(m[1], "2026-03-06", 200, 1),
                    try analyzed(m[2], "2026-03-06", 300, 1), try consumed(m[2], "2026-03-06", 300, 2), try analyzed(m[2], "2026-03-06", 300, 1),
                    // The deletion overtakes the meal's copies.
                    try deleted(m[3], "deleted", 3), try consumed(m[3], "2026-03-06", 999, 2),
                    // Unconsumed before the meal was ever seen, then its copies.
                    try deleted(m[4], "unconsumed", 2), try analyzed(m[4], "2026-03-06", 300, 2), try consumed(m[4], "2026-03-06", 300, 1),
                    try consumed(m[5], "2026-03-10", 450, 1, of: other),
                    // Two users claim one meal: the first one owns it.
                    try consumed(m[6], "2026-03-10", 100, 1, of: other), try consumed(m[6], "2026-03-10", 900, 2, of: third),
                    // An unconsume after a gap: the full copy of its version decides.
                    try deleted(m[7], "unconsumed", 3), try consumed(m[7], "2026-03-07", 314, 2), try analyzed(m[7], "2026-03-07", 314, 3),
                ]
                return [before, batch]
            }
            #expect(states.batched == states.oneByOne)
            #expect(!states.batched.contains { $0.hasPrefix("day|user0|2026-03-05|") }, "the day the meal moved from keeps a summary")
            #expect(states.batched.contains { $0.hasPrefix("day|user0|2026-03-06|3|1|1200|") }, "\(states.batched)")
            #expect(!states.batched.contains { $0.hasPrefix("meal|meal6|user2|") }, "a meal went to the user who claimed it second")
        }
    }

    /// The batch path (`TrendsEventHandler.handle(batch:)`, what the inbox uses under load) and the single path must end
    /// in the same read models for any stream, not only the cases written above: seeded random streams of every event
    /// trends reads (meals analysed, consumed, edited, moved, unconsumed and deleted, in any order and with stale and
    /// repeated copies; weights, ketones and water with their versions; a user's deletion now and then), cut into
    /// batches of random sizes.
    @Test("random event streams cut into random batches end as they do one by one (24 seeded streams)")
    func randomStreams() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let replay = ProjectionReplay(database: stack.database)
            var kinds = Set<Substring>()
            for seed in UInt64(1)...24 {
                let states = try await replay.endStates { ids in
                    var random = SplitMix64(seed: seed)
                    return try Self.cut(Self.randomStream(ids: ids, using: &random), using: &random)
                }
                #expect(states.batched == states.oneByOne, "seed \(seed): the batched and the single path disagree")
                kinds.formUnion(states.oneByOne.compactMap { $0.split(separator: "|").first })
            }
            #expect(kinds.isSuperset(of: ["meal", "day", "weight", "water", "deleted"]), "the streams reached every read model: \(kinds)")
        }
    }

    /// 30 to 60 events of the scenario's users and meals; each meal has one owner, days are within five days.
    static func randomStream(ids: ProjectionReplay.Ids, using random: inout SplitMix64) throws -> [ReceivedEvent] {
        let days = ["2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"]
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func number(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        let owners = ids.meals.map { _ in pick(ids.users) }
        var events: [ReceivedEvent] = []
        for _ in 0..<number(30...60) {
            let mealIndex = number(0...(ids.meals.count - 1))
            let (meal, owner) = (ids.meals[mealIndex], owners[mealIndex])
            let user = pick(ids.users)
            switch number(0...99) {
            case 0..<35:
                let snapshot = TestMeals.snapshot(
                    meal, of: owner, on: pick(days), calories: Double(number(50...1200)), version: number(1...5), dietScore: number(0...100),
                    healthScore: number(0...100))
                events.append(try ProjectionReplay.event(MealConsumed(meal: snapshot), of: owner))
            case 35..<55:
                let snapshot = TestMeals.snapshot(
                    meal, of: owner, on: pick(days), calories: Double(number(50...1200)), consumed: false, version: number(1...5))
                events.append(try ProjectionReplay.event(MealAnalyzed(meal: snapshot), of: owner))
            case 55..<67:
                let deletion = MealDeleted(mealId: meal, userId: owner, reason: pick(["deleted", "unconsumed"]), version: number(1...6))
                events.append(try ProjectionReplay.event(deletion, of: owner))
            case 67..<80:
                let weight = WeightLogged(
                    userId: user, date: pick(days), weightKg: Double(number(550...950)) / 10,
                    ketonesMmolPerLiter: pick([nil, 0.4, 1.8]), loggedAt: Self.start, version: number(1...4))
                events.append(try ProjectionReplay.event(weight, of: user))
            case 80..<97:
                let water = WaterLogged(
                    userId: user, date: pick(days), totalMillilitres: number(0...12) * 250, entryCount: number(0...6), loggedAt: Self.start,
                    version: number(1...4))
                events.append(try ProjectionReplay.event(water, of: user))
            default:
                events.append(try ProjectionReplay.event(UserDeleted(userId: user, deletedAt: Self.start), of: user))
            }
        }
        return events
    }

    /// `events` in order, cut into batches of 1 to 12.
    static func cut(_ events: [ReceivedEvent], using random: inout SplitMix64) -> [[ReceivedEvent]] {
        var batches: [[ReceivedEvent]] = []
        var rest = events[...]
        while !rest.isEmpty {
            let size = 1 + Int(random.next() % 12)
            batches.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return batches
    }

    @Test("events of deleted users in a batch: the purge removes what came before it and what comes after is ignored")
    func deletedUsersWithinABatch() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            // The events up to the second deletion (`upToDeletion`), or all of them.
            func scenario(_ ids: ProjectionReplay.Ids, upToDeletion: Bool) throws -> [[ReceivedEvent]] {
                let (gone, leaving, staying) = (ids.users[0], ids.users[1], ids.users[2])
                let m = ids.meals
                func consumed(_ meal: UUID, of user: UUID) throws -> ReceivedEvent {
                    let snapshot = TestMeals.snapshot(meal, of: user, on: "2026-03-10", calories: 500, version: 1)
                    return try ProjectionReplay.event(MealConsumed(meal: snapshot), of: user)
                }
                let weight = WeightLogged(
                    userId: leaving, date: "2026-03-10", weightKg: 70, ketonesMmolPerLiter: nil, loggedAt: Self.start, version: 1)
                let before = [
                    try ProjectionReplay.event(UserDeleted(userId: gone, deletedAt: Self.start), of: gone), try consumed(m[0], of: leaving),
                ]
                let batch = [
                    try consumed(m[1], of: gone), try consumed(m[2], of: leaving), try ProjectionReplay.event(weight, of: leaving),
                    try consumed(m[3], of: staying),
                    try ProjectionReplay.event(UserDeleted(userId: leaving, deletedAt: Self.start), of: leaving),
                    try consumed(m[4], of: leaving), try consumed(m[5], of: staying),
                    try ProjectionReplay.event(MealDeleted(mealId: m[6], userId: staying, reason: "deleted", version: 2), of: staying),
                ]
                return [before, upToDeletion ? Array(batch.prefix(4)) : batch]
            }
            // Before its deletion the leaving user has rows, so their absence after it is the purge's doing.
            let beforeDeletion = try await ProjectionReplay(database: stack.database).endStates { try scenario($0, upToDeletion: true) }
            #expect(beforeDeletion.batched.contains { $0.contains("|user1|") }, "no rows of the leaving user before: \(beforeDeletion.batched)")
            let states = try await ProjectionReplay(database: stack.database).endStates { try scenario($0, upToDeletion: false) }
            #expect(states.batched == states.oneByOne)
            #expect(!states.batched.contains { $0.contains("|user0|") || $0.contains("|user1|") }, "rows of a deleted user: \(states.batched)")
            #expect(states.batched.filter { $0.hasPrefix("deleted|") } == ["deleted|user0", "deleted|user1"])
            #expect(states.batched.contains { $0.hasPrefix("day|user2|2026-03-10|2|0|1000|") }, "\(states.batched)")
        }
    }

    @Test(
        "an unreadable meal in a batch rejects the batch, so the inbox applies its events one by one; through the broker it is parked, with the user's later events behind it"
    )
    func unreadableEventInABatch() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID()
            var broken = TestMeals.snapshot(UUID(), of: user, on: "2026-03-10", calories: 999, version: 1)
            broken.localDate = "2026-13-45"
            let good = (0..<5).map { _ in TestMeals.snapshot(UUID(), of: user, on: "2026-03-10", calories: 100, version: 1) }
            let events = try (good.prefix(2) + [broken] + good.suffix(3)).map { try ProjectionReplay.event(MealConsumed(meal: $0), of: user) }
            let handler = ProjectionReplay(database: stack.database).handler
            await #expect(throws: EventRejected.self) {
                try await stack.database.transaction(logger: TestEnvironment.logger) { connection in
                    try await handler.handle(batch: events, on: connection, logger: TestEnvironment.logger)
                }
            }
            #expect(try await userRows(in: "meals", of: user, client: stack.database) == 0, "the rejected batch left rows behind")

            var ids: [UUID] = []
            for meal in good.prefix(2) + [broken] + good.suffix(3) { ids.append(try await stack.publish(MealConsumed(meal: meal), userId: user)) }
            try await stack.awaitApplied(ids)
            // The user's events keep their order: the two before the broken one apply, the three after it wait with it.
            let day = try await stack.get("/api/history/2026-03-10", as: user, DayHistory.self)
            #expect(day.meals.count == 2 && day.summary.calories == 200 && day.summary.mealsConsumed == 2)
            var parked: [(UUID, String)] = []
            let query: PostgresQuery = "SELECT event_id, reason FROM parked_events WHERE subject = \(user.uuidString.lowercased()) ORDER BY seq"
            for try await row in try await stack.database.query(query).decode((UUID, String).self) { parked.append(row) }
            #expect(parked.map(\.0) == Array(ids.suffix(4)), "\(parked)")
            #expect(parked.first.map { !$0.1.contains("waits behind") } == true, "the broken meal is parked for what is wrong with it: \(parked)")
            #expect(parked.dropFirst().allSatisfy { $0.1 == "waits behind an earlier parked event of its subject" })
        }
    }
}
