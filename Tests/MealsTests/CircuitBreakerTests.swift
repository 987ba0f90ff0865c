import AsyncHTTPClient
import Foundation
import Logging
import Metrics
import MetricsTestKit
import Testing

@testable import MealsService

@Suite("Circuit breaker around the vision provider")
struct CircuitBreakerTests {
    let photo = PhotoUpload(bytes: VisionClientTests.photoBytes, format: .png)

    /// Five users; the client tests' photos come from them in turn, so that three failures are three users' failures.
    let users = (0..<5).map { _ in UUID() }

    /// One attempt per photo, so each failed photo is one call the fake server counts; the server's circuit opens after
    /// 3 failures of 3 distinct users for 30 s, a user is held back alone after 5 of their own.
    func client(_ url: URL, clock: ManualClock, metrics: any MetricsFactory = TestMetrics()) -> OpenAICompatibleVisionClient {
        let settings = VisionSettings(
            baseURL: url, model: "vision-test-model", maxAttempts: 1, initialBackoff: .zero, failureThreshold: 3, breakerUsers: 3,
            openDuration: .seconds(30))
        return OpenAICompatibleVisionClient(
            settings: settings, httpClient: .shared, logger: Logger(label: "vision-test"), now: { clock.now() }, metrics: metrics)
    }

    @Test("the breaker's state is the gauge vision_breaker_state (0 closed, 2 open, 1 half-open) and each call is timed")
    func stateGaugeAndDurations() async throws {
        let clock = ManualClock()
        let metrics = TestMetrics()
        try await FakeVisionProvider.run([.status(.serviceUnavailable)]) { fake, url in
            let vision = client(url, clock: clock, metrics: metrics)
            let state = try metrics.expectGauge("vision_breaker_state")
            #expect(state.lastValue == 0)
            for user in users[0..<3] { _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: user) } }
            #expect(state.lastValue == 2)
            _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: users[3]) }
            #expect(state.lastValue == 2)

            fake.script([.items([MealPhotoItems.rice])])
            clock.advance(by: .seconds(30))
            _ = try await vision.recognise(photo, hint: nil, caller: users[3])
            #expect(state.values == [0, 0, 0, 2, 1, 0])
        }
        let unavailable = try metrics.expectTimer("vision_request_duration_seconds", [("outcome", "unavailable"), ("key", "server")])
        let answered = try metrics.expectTimer("vision_request_duration_seconds", [("outcome", "ok"), ("key", "server")])
        #expect(unavailable.values.count == 3)
        #expect(answered.values.count == 1)
        #expect(unavailable.displayUnit == .seconds)
    }

    @Test("after 3 users' photos failed the provider is not called until 30 s have passed; then a good trial closes it")
    func opensAndCloses() async throws {
        let clock = ManualClock()
        try await FakeVisionProvider.run([.status(.internalServerError)]) { fake, url in
            let vision = client(url, clock: clock)
            for user in users[0..<3] {
                let error = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: user) }
                guard case .failed = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
            }
            clock.advance(by: .seconds(10))
            let refused = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: users[4]) }
            #expect(refused == .circuitOpen(retryAfter: .seconds(20)))
            #expect(fake.calls == 3)

            fake.script([.items([MealPhotoItems.rice])])
            clock.advance(by: .seconds(20))
            let trial = try await vision.recognise(photo, hint: nil, caller: users[4])
            let next = try await vision.recognise(photo, hint: nil, caller: users[0])
            #expect(trial.map(\.name) == ["white rice"])
            #expect(next.map(\.name) == ["white rice"])
            #expect(fake.calls == 5)
        }
    }

    @Test("a failed trial holds back its sender; once trials of 3 users have failed the circuit is open again for everyone")
    func failedTrialsReopen() async throws {
        let clock = ManualClock()
        try await FakeVisionProvider.run([.status(.badGateway)]) { fake, url in
            let vision = client(url, clock: clock)
            for user in users[0..<3] { _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: user) } }
            clock.advance(by: .seconds(30))
            for (number, user) in users[0..<3].enumerated() {
                let trial = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: user) }
                guard case .failed = trial else { Issue.record("expected the trial to reach the server, got \(String(describing: trial))"); return }
                #expect(fake.calls == 4 + number)
                let again = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: user) }
                #expect(again == .circuitOpen(retryAfter: .seconds(30)), "the user whose trial failed waits")
            }
            let refused = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: users[4]) }
            #expect(refused == .circuitOpen(retryAfter: .seconds(30)))
            #expect(fake.calls == 6)
        }
    }

    @Test("with MEALS_VISION_BREAKER_USERS=1 a failed trial reopens the circuit at once, as a plain breaker does")
    func failedTrialReopensWithOneUser() async throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(
            failureThreshold: 1, minimumUsers: 1, window: .seconds(60), userFailureThreshold: 5, openDuration: .seconds(30),
            now: { clock.now() })
        _ = try? await breaker.run(for: users[0]) { throw VisionError.failed("down") }
        clock.advance(by: .seconds(30))
        _ = try? await breaker.run(for: users[1]) { throw VisionError.failed("still down") }
        await #expect(throws: VisionError.circuitOpen(retryAfter: .seconds(30))) { try await breaker.run(for: users[2]) { 1 } }
    }

    @Test("answers that are not JSON of the asked shape, from several users, count as failures")
    func malformedCounts() async throws {
        try await FakeVisionProvider.run([.content("not json at all")]) { fake, url in
            let vision = client(url, clock: ManualClock())
            for user in users[0..<3] {
                let error = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: user) }
                guard case .malformedAnswer = error else { Issue.record("expected malformedAnswer, got \(String(describing: error))"); return }
            }
            let refused = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: users[3]) }
            #expect(refused == .circuitOpen(retryAfter: .seconds(30)))
            #expect(fake.calls == 3)
        }
    }

    @Test("photos without food, however many, are answered each time and open nothing: the provider is well")
    func noFoodIsNoFailure() async throws {
        try await FakeVisionProvider.run([.items([])]) { fake, url in
            let vision = client(url, clock: ManualClock())
            for round in 1...12 {
                let error = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: users[round % 3]) }
                guard case .noFoodRecognised = error else { Issue.record("photo \(round): got \(String(describing: error))"); return }
            }
            #expect(fake.calls == 12)
            fake.script([.items([MealPhotoItems.egg])])
            let items = try await vision.recognise(photo, hint: nil, caller: users[0])
            #expect(items.map(\.name) == ["fried egg"])
        }
    }

    @Test("only failures with no success between them count: a success in between keeps the circuit closed")
    func successResets() async throws {
        let failure = FakeVisionProvider.Reply.status(.internalServerError)
        let good = FakeVisionProvider.Reply.items([MealPhotoItems.egg])
        try await FakeVisionProvider.run([failure, failure, good, failure, failure, good]) { fake, url in
            let vision = client(url, clock: ManualClock())
            for number in 0..<5 {
                _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil, caller: users[number]) }
            }
            let sixth = try await vision.recognise(photo, hint: nil, caller: users[0])
            #expect(sixth.map(\.name) == ["fried egg"])
            #expect(fake.calls == 6)
        }
    }

    @Test("while the half-open trial runs, other photos are refused instead of piling onto a recovering provider")
    func oneTrialAtATime() async throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(
            failureThreshold: 1, minimumUsers: 1, window: .seconds(60), userFailureThreshold: 5, openDuration: .seconds(5),
            now: { clock.now() })
        _ = try? await breaker.run(for: users[0]) { throw VisionError.failed("down") }
        clock.advance(by: .seconds(5))
        let (trialStarted, started) = AsyncStream.makeStream(of: Void.self)
        let (releaseTrial, release) = AsyncStream.makeStream(of: Void.self)
        async let trial: Int = breaker.run(for: users[1]) {
            started.yield()
            for await _ in releaseTrial { break }
            return 42
        }
        for await _ in trialStarted { break }
        await #expect(throws: VisionError.circuitOpen(retryAfter: CircuitBreaker.trialRetryAfter)) {
            try await breaker.run(for: users[2]) { 0 }
        }
        release.yield()
        #expect(try await trial == 42)
        #expect(try await breaker.run(for: users[2]) { 7 } == 7)
    }
}
