import Foundation
import Testing

@testable import MealsService

@Suite("The vision breaker's per-user rule")
struct CircuitBreakerUserRuleTests {
    let attacker = UUID()
    let others = (0..<3).map { _ in UUID() }

    /// The defaults: the server's circuit opens after 5 failures of at least 3 users within 60 s, for 30 s; a user is
    /// held back alone after 5 failures of their own in a row.
    func breaker(_ clock: ManualClock) -> CircuitBreaker {
        CircuitBreaker(
            failureThreshold: 5, minimumUsers: 3, window: .seconds(60), userFailureThreshold: 5, openDuration: .seconds(30),
            now: { clock.now() })
    }

    /// Runs a call of `caller` that fails with `error` when it reaches the provider; true when it did.
    func failing(_ breaker: CircuitBreaker, _ caller: UUID, _ error: VisionError = .failed("down")) async -> (reached: Bool, error: VisionError?) {
        var reached = false
        do {
            _ = try await breaker.run(for: caller) { () async throws -> Int in
                reached = true
                throw error
            }
            return (reached, nil)
        } catch {
            return (reached, error as? VisionError)
        }
    }

    @Test("one user's failures, garbage answers or outages alike, never stop the others' photos; after 5 only that user waits")
    func oneUserCannotOpenIt() async throws {
        let clock = ManualClock()
        let breaker = breaker(clock)
        var reached = 0
        for number in 1...40 {
            let error: VisionError = number.isMultiple(of: 2) ? .malformedAnswer("not JSON") : .failed("the provider answered 500")
            let call = await failing(breaker, attacker, error)
            if call.reached { reached += 1 } else { #expect(call.error == .circuitOpen(retryAfter: .seconds(30))) }
        }
        #expect(reached == 5, "the user's own circuit holds back their later photos without asking the provider")
        for other in others { #expect(try await breaker.run(for: other) { "items" } == "items") }
        await #expect(throws: VisionError.circuitOpen(retryAfter: .seconds(30))) { try await breaker.run(for: attacker) { 0 } }
    }

    @Test("photos without food are answers, not failures: they never hold back their sender or anyone else")
    func noFoodNeverCounts() async throws {
        let breaker = breaker(ManualClock())
        for _ in 1...50 {
            let call = await failing(breaker, attacker, .noFoodRecognised("the model saw no food or drink"))
            #expect(call.reached && call.error == .noFoodRecognised("the model saw no food or drink"))
        }
        #expect(try await breaker.run(for: others[0]) { 1 } == 1)
    }

    @Test("two users failing, however often, do not open the server's circuit; a third user failing does")
    func distinctUsersOpenIt() async throws {
        let clock = ManualClock()
        let twoUsers = breaker(clock)
        for _ in 1...4 {
            _ = await failing(twoUsers, attacker)
            _ = await failing(twoUsers, others[0])
        }
        #expect(try await twoUsers.run(for: others[2]) { 1 } == 1)

        let threeUsers = breaker(clock)
        for _ in 1...3 { _ = await failing(threeUsers, attacker) }
        _ = await failing(threeUsers, others[0])
        let third = await failing(threeUsers, others[1])
        #expect(third.reached)
        await #expect(throws: VisionError.circuitOpen(retryAfter: .seconds(30))) { try await threeUsers.run(for: others[2]) { 1 } }
    }

    @Test("failures older than the window do not count towards opening the server's circuit")
    func windowForgets() async throws {
        let clock = ManualClock()
        let breaker = breaker(clock)
        for _ in 1...2 {
            _ = await failing(breaker, attacker)
            _ = await failing(breaker, others[0])
        }
        clock.advance(by: .seconds(61))
        let late = await failing(breaker, others[1])
        #expect(late.reached)
        #expect(try await breaker.run(for: others[2]) { 1 } == 1)
    }

    @Test("a held-back user gets one try after the wait: a failure holds them back again at once, a success frees them")
    func heldBackUserTrial() async throws {
        let clock = ManualClock()
        let breaker = breaker(clock)
        for _ in 1...5 { _ = await failing(breaker, attacker) }
        clock.advance(by: .seconds(10))
        #expect(await failing(breaker, attacker).error == .circuitOpen(retryAfter: .seconds(20)))
        clock.advance(by: .seconds(20))
        #expect(await failing(breaker, attacker).reached)
        #expect(await failing(breaker, attacker).error == .circuitOpen(retryAfter: .seconds(30)))
        clock.advance(by: .seconds(30))
        #expect(try await breaker.run(for: attacker) { 1 } == 1)
        for _ in 1...4 { #expect(await failing(breaker, attacker).reached, "a success starts the user's count again") }
    }
}
