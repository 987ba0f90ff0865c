import Foundation
import SyncContracts
import TestSupport
import Testing

/// Property tests of the conflict rule: over many random histories of writes, the state every order of arrival
/// converges to is the same, and it is the newest write's. The histories are seeded (`TestSeeds`: a failure names its
/// seed, and `NUTRITION_TEST_SEEDS` replays it).
@Suite("Last write wins")
struct LastWriteWinsTests {
    /// A write of a whole entity: its stamp, the state it sets, and the millisecond the test stamped it with (what the
    /// oracle reads, rather than the stamp's own comparison).
    struct Write: Equatable {
        var stamp: WriteStamp
        var state: Int
        var millis: Int64
    }

    /// The stored state after applying `writes` in their order under the rule.
    static func replay(_ writes: [Write]) -> (stored: Write?, ignored: Int) {
        var stored: Write?
        var ignored = 0
        for write in writes {
            switch LastWriteWins.edit(incoming: write.stamp, stored: stored?.stamp) {
            case .apply: stored = write
            case .unchanged: break
            case .ignoreStale, .preserveDeletion: ignored += 1
            }
        }
        return (stored, ignored)
    }

    /// Random writes stamped within a few milliseconds of each other, so equal times (ties) are common.
    static func randomWrites(count: Int, using generator: inout some RandomNumberGenerator) -> [Write] {
        (0..<count).map { index in
            let millis = Int64.random(in: 1_790_000_000_000...1_790_000_000_004, using: &generator)
            let body = Array("{\"state\":\(index)}".utf8)
            let stamp = try! WriteStamp.of(modifiedAt: nil, body: body, now: Date(timeIntervalSince1970: Double(millis) / 1000))
            return Write(stamp: stamp, state: index, millis: millis)
        }
    }

    @Test(
        "every order of arrival ends in the same state, a write of the latest millisecond", arguments: TestSeeds.list(default: Array(1...20)))
    func orderIndependent(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        for round in 0..<25 {
            let writes = Self.randomWrites(count: Int.random(in: 1...8, using: &generator), using: &generator)
            // The oracle knows only the times it chose: the winner is of the latest one, and the same in every order.
            let latest = writes.map(\.millis).max()
            let first = Self.replay(writes).stored
            #expect(first?.millis == latest, "seed \(seed), round \(round): \(writes.map(\.millis)) kept \(first.map(\.state) ?? -1)")
            for _ in 0..<6 {
                let arrival = writes.shuffled(using: &generator)
                #expect(Self.replay(arrival).stored == first, "seed \(seed), round \(round): arrival \(arrival.map(\.state))")
            }
        }
    }

    @Test("a replayed write changes nothing and is not a conflict", arguments: TestSeeds.list(default: Array(1...20)))
    func replayIsUnchanged(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        for round in 0..<10 {
            let writes = Self.randomWrites(count: Int.random(in: 1...6, using: &generator), using: &generator)
            let once = Self.replay(writes)
            let twice = Self.replay(writes + writes)
            #expect(twice.stored == once.stored, "seed \(seed), round \(round)")
            let stored = try #require(once.stored, "seed \(seed), round \(round)")
            #expect(LastWriteWins.edit(incoming: stored.stamp, stored: stored.stamp) == .unchanged, "seed \(seed), round \(round)")
        }
    }

    @Test("of two different writes exactly one wins, whichever is stored", arguments: TestSeeds.list(default: Array(1...20)))
    func antisymmetric(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        for round in 0..<50 {
            let pair = Self.randomWrites(count: 2, using: &generator)
            guard pair[0].stamp != pair[1].stamp else { continue }
            let firstWins = LastWriteWins.edit(incoming: pair[0].stamp, stored: pair[1].stamp) == .apply
            let secondWins = LastWriteWins.edit(incoming: pair[1].stamp, stored: pair[0].stamp) == .apply
            #expect(firstWins != secondWins, "seed \(seed), round \(round)")
        }
    }

    @Test("an older write is ignored as stale; an equal time is settled by the tiebreak, the same way both ways")
    func staleAndTies() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let older = try WriteStamp.of(modifiedAt: "2026-09-21T10:00:00.000Z", body: Array("a".utf8), now: now)
        let newer = try WriteStamp.of(modifiedAt: "2026-09-21T10:00:00.001Z", body: Array("a".utf8), now: now)
        #expect(LastWriteWins.edit(incoming: older, stored: newer) == .ignoreStale)
        #expect(LastWriteWins.edit(incoming: newer, stored: older) == .apply)

        let tieA = try WriteStamp.of(modifiedAt: "2026-09-21T10:00:00Z", body: Array("a".utf8), now: now)
        let tieB = try WriteStamp.of(modifiedAt: "2026-09-21T12:00:00+02:00", body: Array("b".utf8), now: now)
        #expect(tieA.millis == tieB.millis)
        #expect(tieA != tieB)
        let winner = max(tieA, tieB)
        let loser = min(tieA, tieB)
        #expect(LastWriteWins.edit(incoming: winner, stored: loser) == .apply)
        #expect(LastWriteWins.edit(incoming: loser, stored: winner) == .ignoreStale)
    }

    @Test("a deletion is preserved against any edit, older or newer; a deletion over a newer edit is a conflict")
    func deletionWins() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let deletion = try WriteStamp.of(modifiedAt: "2026-09-21T10:00:00Z", body: [], now: now)
        let before = try WriteStamp.of(modifiedAt: "2026-09-21T09:00:00Z", body: [], now: now)
        let after = try WriteStamp.of(modifiedAt: "2026-09-21T11:00:00Z", body: [], now: now)
        #expect(LastWriteWins.edit(incoming: before, stored: deletion, storedIsDeletion: true) == .preserveDeletion)
        #expect(LastWriteWins.edit(incoming: after, stored: deletion, storedIsDeletion: true) == .preserveDeletion)
        #expect(LastWriteWins.deletionOverridesNewerEdit(deletion: deletion, stored: after))
        #expect(!LastWriteWins.deletionOverridesNewerEdit(deletion: deletion, stored: before))
    }

    @Test("modifiedAt is read as ISO 8601; anything else is a 422 naming the field; a time far ahead counts as now")
    func readingModifiedAt() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(throws: (any Error).self) { try WriteStamp.of(modifiedAt: "yesterday", body: [], now: now) }
        let ahead = try WriteStamp.of(modifiedAt: "2099-01-01T00:00:00Z", body: [], now: now)
        #expect(ahead.date == now.addingTimeInterval(WriteStamp.allowedClockSkew))
        let absent = try WriteStamp.of(modifiedAt: nil, body: [], now: now)
        #expect(absent.date == now)
    }
}
