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

    /// One attempt per photo, so each failed photo is one call the fake server counts; opens after 3 failures for 30 s.
    func client(_ url: URL, clock: ManualClock, metrics: any MetricsFactory = TestMetrics()) -> OpenAICompatibleVisionClient {
        let settings = VisionSettings(
            baseURL: url, model: "vision-test-model", maxAttempts: 1, initialBackoff: .zero, failureThreshold: 3,
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
            for _ in 1...3 { _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) } }
            #expect(state.lastValue == 2)
            _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) }
            #expect(state.lastValue == 2)

            fake.script([.items([MealPhotoItems.rice])])
            clock.advance(by: .seconds(30))
            _ = try await vision.recognise(photo, hint: nil)
            #expect(state.values == [0, 0, 0, 2, 1, 0])
        }
        let unavailable = try metrics.expectTimer("vision_request_duration_seconds", [("outcome", "unavailable"), ("key", "server")])
        let answered = try metrics.expectTimer("vision_request_duration_seconds", [("outcome", "ok"), ("key", "server")])
        #expect(unavailable.values.count == 3)
        #expect(answered.values.count == 1)
        #expect(unavailable.displayUnit == .seconds)
    }

    @Test("after 3 failed photos the provider is not called until 30 s have passed; then a good trial closes it")
    func opensAndCloses() async throws {
        let clock = ManualClock()
        try await FakeVisionProvider.run([.status(.internalServerError)]) { fake, url in
            let vision = client(url, clock: clock)
            for _ in 1...3 {
                let error = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) }
                guard case .failed = error else { Issue.record("expected failed, got \(String(describing: error))"); return }
            }
            clock.advance(by: .seconds(10))
            let refused = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) }
            #expect(refused == .circuitOpen(retryAfter: .seconds(20)))
            #expect(fake.calls == 3)

            fake.script([.items([MealPhotoItems.rice])])
            clock.advance(by: .seconds(20))
            let trial = try await vision.recognise(photo, hint: nil)
            let next = try await vision.recognise(photo, hint: nil)
            #expect(trial.map(\.name) == ["white rice"])
            #expect(next.map(\.name) == ["white rice"])
            #expect(fake.calls == 5)
        }
    }

    @Test("a failed trial reopens the circuit at once")
    func failedTrialReopens() async throws {
        let clock = ManualClock()
        try await FakeVisionProvider.run([.status(.badGateway)]) { fake, url in
            let vision = client(url, clock: clock)
            for _ in 1...3 { _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) } }
            clock.advance(by: .seconds(30))
            let trial = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) }
            guard case .failed = trial else { Issue.record("expected the trial to reach the server, got \(String(describing: trial))"); return }
            #expect(fake.calls == 4)
            let refused = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) }
            #expect(refused == .circuitOpen(retryAfter: .seconds(30)))
            #expect(fake.calls == 4)
        }
    }

    @Test("malformed answers count as failures")
    func malformedCounts() async throws {
        try await FakeVisionProvider.run([.content("not json at all")]) { fake, url in
            let vision = client(url, clock: ManualClock())
            for _ in 1...3 { _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) } }
            let refused = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) }
            #expect(refused == .circuitOpen(retryAfter: .seconds(30)))
            #expect(fake.calls == 3)
        }
    }

    @Test("only consecutive failures count: a success in between keeps the circuit closed")
    func successResets() async throws {
        let failure = FakeVisionProvider.Reply.status(.internalServerError)
        let good = FakeVisionProvider.Reply.items([MealPhotoItems.egg])
        try await FakeVisionProvider.run([failure, failure, good, failure, failure, good]) { fake, url in
            let vision = client(url, clock: ManualClock())
            for _ in 1...5 { _ = await VisionClientTests.visionError { try await vision.recognise(photo, hint: nil) } }
            let sixth = try await vision.recognise(photo, hint: nil)
            #expect(sixth.map(\.name) == ["fried egg"])
            #expect(fake.calls == 6)
        }
    }

    @Test("while the half-open trial runs, other photos are refused instead of piling onto a recovering provider")
    func oneTrialAtATime() async throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(failureThreshold: 1, openDuration: .seconds(5), now: { clock.now() })
        _ = try? await breaker.run { throw VisionError.failed("down") }
        clock.advance(by: .seconds(5))
        let (trialStarted, started) = AsyncStream.makeStream(of: Void.self)
        let (releaseTrial, release) = AsyncStream.makeStream(of: Void.self)
        async let trial: Int = breaker.run {
            started.yield()
            for await _ in releaseTrial { break }
            return 42
        }
        for await _ in trialStarted { break }
        await #expect(throws: VisionError.circuitOpen(retryAfter: CircuitBreaker.trialRetryAfter)) {
            try await breaker.run { 0 }
        }
        release.yield()
        #expect(try await trial == 42)
        #expect(try await breaker.run { 7 } == 7)
    }
}
