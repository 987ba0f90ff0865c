import BackendKit
import EventContracts
import Foundation
import Synchronization
import Testing

@testable import MealsService

/// A meal write's wait for a new user's first profile, with the database stood in for by a box the test fills: the
/// registration's `user.profile_updated` is held back until the test stores it.
@Suite("Waiting for a new user's first profile", .timeLimit(.minutes(1)))
struct ProfileWaitTests {
    /// What the stand-in database holds: nil until the test stores the profile.
    final class StoredBox: Sendable {
        private let profile = Mutex<CallerProfile?>(nil)
        func store(_ zone: String) {
            profile.withLock {
                $0 = CallerProfile(
                    event: UserProfileUpdated(userId: UUID(), displayName: "Ana", dietPreference: "keto", timeZone: zone, version: 1))
            }
        }
        func read() -> CallerProfile? { profile.withLock { $0 } }
    }

    /// Polls until `arrivals` shows `count` writes waiting for `userId` (they register a moment after they start).
    static func untilWaiting(_ arrivals: ProfileArrivals, for userId: UUID, count: Int = 1) async throws {
        while arrivals.waitingCount(for: userId) != count { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// A write's profile of `userId` as `CallerProfiles` reads it, with `box` for the database.
    static func profile(
        _ userId: UUID, _ arrivals: ProfileArrivals, limit: Duration, recheck: Duration = .seconds(3_600), box: StoredBox
    ) async throws -> CallerProfile {
        try await CallerProfiles.profile(of: userId, arrivals: arrivals, limit: limit, recheck: recheck) { box.read() }
    }

    @Test("a write that came before the profile dates the meal in the user's zone once this replica's consumer commits it")
    func wokenByCommit() async throws {
        let (arrivals, userId, box) = (ProfileArrivals(capacity: 8, perUser: 4), UUID(), StoredBox())
        async let found = Self.profile(userId, arrivals, limit: .seconds(3_600), box: box)
        try await Self.untilWaiting(arrivals, for: userId)
        box.store("Pacific/Auckland")
        arrivals.arrived([UUID()])  // another user's profile wakes nobody here
        arrivals.arrived([userId])
        let profile = try await found
        #expect(profile.timeZoneName == "Pacific/Auckland")
        #expect(profile.scoring.diet == .keto, "the user's diet, not the balanced default")
        #expect(profile.localDate(of: Date(timeIntervalSince1970: 1_790_000_000)) == "2026-09-22", "Auckland's day, not UTC's 2026-09-21")
        #expect(arrivals.waitingCount(for: userId) == 0, "the slot is given back")
    }

    @Test("a profile another replica stored is found by the re-read, without any wake-up here")
    func foundByRecheck() async throws {
        let (arrivals, userId, box) = (ProfileArrivals(capacity: 8, perUser: 4), UUID(), StoredBox())
        async let found = Self.profile(userId, arrivals, limit: .seconds(3_600), recheck: .milliseconds(20), box: box)
        try await Self.untilWaiting(arrivals, for: userId)
        box.store("America/Los_Angeles")
        #expect(try await found.timeZoneName == "America/Los_Angeles")
    }

    @Test("a profile that never comes does not fail the write: after the wait it goes on in UTC with the standard diet")
    func standardAfterWait() async throws {
        let profile = try await Self.profile(UUID(), ProfileArrivals(capacity: 8, perUser: 4), limit: .milliseconds(100), box: StoredBox())
        #expect(profile == .standard)
    }

    @Test("a known profile is used at once, even with no wait configured and every slot taken")
    func knownNeedsNoSlot() async throws {
        let box = StoredBox()
        box.store("Europe/Berlin")
        let arrivals = ProfileArrivals(capacity: 1, perUser: 1)
        let zones = try await arrivals.waiting(for: UUID(), of: UUID()) { _ async throws -> [String] in
            let waiting = try await Self.profile(UUID(), arrivals, limit: .seconds(3_600), box: box)
            let atOnce = try await Self.profile(UUID(), arrivals, limit: .zero, box: box)
            return [waiting.timeZoneName, atOnce.timeZoneName]
        }
        #expect(zones == ["Europe/Berlin", "Europe/Berlin"])
    }

    @Test("beyond the waiters' bound, and beyond one user's share of it, a write goes on at once with the standard profile")
    func bounded() async throws {
        let arrivals = ProfileArrivals(capacity: 2, perUser: 1)
        let (greedy, other, box) = (UUID(), UUID(), StoredBox())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await arrivals.waiting(for: greedy, of: greedy) { _ in try await Task.sleep(for: .seconds(3_600)) } }
            try await Self.untilWaiting(arrivals, for: greedy)
            #expect(try await Self.profile(greedy, arrivals, limit: .seconds(3_600), box: box) == .standard, "the user's second write")
            group.addTask { _ = try await Self.profile(other, arrivals, limit: .seconds(3_600), box: box) }
            try await Self.untilWaiting(arrivals, for: other)
            #expect(try await Self.profile(UUID(), arrivals, limit: .seconds(3_600), box: box) == .standard, "a third write past the bound of 2")
            group.cancelAll()
            while let result = await group.nextResult() {
                if case .failure(let error) = result { #expect(error is CancellationError) }
            }
        }
        #expect(arrivals.waitingCount(for: greedy) == 0 && arrivals.waitingCount(for: other) == 0)
    }

    @Test("a cancelled write stops waiting at once and gives its slot back")
    func cancelled() async throws {
        let (arrivals, userId) = (ProfileArrivals(capacity: 1, perUser: 1), UUID())
        let request = Task { try await Self.profile(userId, arrivals, limit: .seconds(3_600), box: StoredBox()) }
        try await Self.untilWaiting(arrivals, for: userId)
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        #expect(arrivals.waitingCount(for: userId) == 0)
    }
}
