import Foundation
import ServiceDefaults
import Synchronization
import Testing

@testable import SharingService

/// A share request's wait for a meal's first event, with the database stood in for by a box the test fills.
@Suite("Waiting for a meal's first event", .timeLimit(.minutes(1)))
struct MealWaitTests {
    /// What the stand-in database holds: nil until the test stores the meal.
    final class StoredBox: Sendable {
        private let meal = Mutex<StoredMeal?>(nil)
        func store(_ userId: UUID) { meal.withLock { $0 = StoredMeal(userId: userId, snapshot: nil, deleted: false) } }
        func read() -> StoredMeal? { meal.withLock { $0 } }
    }

    /// Polls until `arrivals` shows `count` requests waiting for `mealId` (they register a moment after they start).
    static func untilWaiting(_ arrivals: MealArrivals, for mealId: UUID, count: Int = 1) async throws {
        while arrivals.waitingCount(for: mealId) != count { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("a waiting request returns the meal once this replica's consumer commits it, though the database is re-read only hourly")
    func wokenByCommit() async throws {
        let arrivals = MealArrivals(capacity: 8, perUser: 4)
        let wait = MealWait(arrivals: arrivals, limit: .seconds(3_600), recheck: .seconds(3_600))
        let (mealId, userId, box) = (UUID(), UUID(), StoredBox())
        async let found = wait.meal(mealId, of: userId) { box.read() }
        try await Self.untilWaiting(arrivals, for: mealId)
        box.store(userId)
        arrivals.arrived([UUID()])  // another meal's event wakes nobody here
        arrivals.arrived([mealId])
        #expect(try await found?.userId == userId)
        #expect(arrivals.waitingCount(for: mealId) == 0, "the slot is given back")
    }

    @Test("a meal another replica stored is found by the re-read, without any wake-up here")
    func foundByRecheck() async throws {
        let arrivals = MealArrivals(capacity: 8, perUser: 4)
        let wait = MealWait(arrivals: arrivals, limit: .seconds(3_600), recheck: .milliseconds(20))
        let (mealId, userId, box) = (UUID(), UUID(), StoredBox())
        async let found = wait.meal(mealId, of: userId) { box.read() }
        try await Self.untilWaiting(arrivals, for: mealId)
        box.store(userId)
        #expect(try await found?.userId == userId)
    }

    @Test("a meal still unknown after the wait is nil (the route then asks the meals service whether it exists)")
    func unknownAfterWait() async throws {
        let arrivals = MealArrivals(capacity: 8, perUser: 4)
        let wait = MealWait(arrivals: arrivals, limit: .milliseconds(100), recheck: .milliseconds(20))
        #expect(try await wait.meal(UUID(), of: UUID()) { nil } == nil)
    }

    @Test("beyond the waiters' bound, and beyond one user's share of it, a request is answered 503 busy with Retry-After")
    func bounded() async throws {
        let arrivals = MealArrivals(capacity: 2, perUser: 1)
        let wait = MealWait(arrivals: arrivals, limit: .seconds(3_600), recheck: .seconds(3_600))
        let (first, second, greedy, other) = (UUID(), UUID(), UUID(), UUID())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await wait.meal(first, of: greedy) { nil } }
            try await Self.untilWaiting(arrivals, for: first)
            do {
                _ = try await wait.meal(second, of: greedy) { nil }
                Issue.record("a second wait of the same user was admitted")
            } catch let error as APIError {
                #expect(error.status == .serviceUnavailable && error.code == "busy" && error.headers[.retryAfter] == "1")
            }
            group.addTask { _ = try await wait.meal(second, of: other) { nil } }
            try await Self.untilWaiting(arrivals, for: second)
            do {
                _ = try await wait.meal(UUID(), of: UUID()) { nil }
                Issue.record("a third wait was admitted past the bound of 2")
            } catch let error as APIError {
                #expect(error.status == .serviceUnavailable && error.code == "busy")
            }
            #expect(
                try await wait.meal(UUID(), of: UUID()) { StoredMeal(userId: other, snapshot: nil, deleted: false) } != nil,
                "a known meal needs no slot")
            group.cancelAll()
            while let result = await group.nextResult() {
                if case .failure(let error) = result { #expect(error is CancellationError) }
            }
        }
        #expect(arrivals.waitingCount(for: first) == 0 && arrivals.waitingCount(for: second) == 0)
    }

    @Test("a cancelled request stops waiting at once and gives its slot back")
    func cancelled() async throws {
        let arrivals = MealArrivals(capacity: 1, perUser: 1)
        let wait = MealWait(arrivals: arrivals, limit: .seconds(3_600), recheck: .seconds(3_600))
        let mealId = UUID()
        let request = Task { try await wait.meal(mealId, of: UUID()) { nil } }
        try await Self.untilWaiting(arrivals, for: mealId)
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        #expect(arrivals.waitingCount(for: mealId) == 0)
        let short = MealWait(arrivals: arrivals, limit: .milliseconds(50), recheck: .milliseconds(10))
        #expect(try await short.meal(UUID(), of: UUID()) { nil } == nil, "the next request waits in the freed slot (not 503)")
    }
}
