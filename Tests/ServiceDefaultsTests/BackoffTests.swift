import ServiceDefaults
import Synchronization
import Testing

@Suite("Backoff")
struct BackoffTests {
    @Test("the ceiling doubles up to the maximum and a reset starts again")
    func ceilingDoublesToMaximum() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(500), fraction: { 1 })
        let waits = (0..<5).map { _ in backoff.next() }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(100))
    }

    @Test("each wait is the drawn share of the ceiling, never outside zero and the ceiling")
    func fullJitter() {
        let draws = Mutex([0.5, 0.0, 0.25, 7.0, -1.0])
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(8)) { draws.withLock { $0.removeFirst() } }
        let waits = (0..<5).map { _ in backoff.next() }
        #expect(waits == [.milliseconds(500), .zero, .seconds(1), .seconds(8), .zero])
    }

    @Test("draws by default fall within the ceiling and are not all the same")
    func defaultDrawsVary() {
        var waits: Set<Duration> = []
        for _ in 0..<50 {
            var backoff = Backoff(initial: .seconds(1), maximum: .seconds(1))
            let wait = backoff.next()
            #expect(wait >= .zero && wait <= .seconds(1))
            waits.insert(wait)
        }
        #expect(waits.count > 1)
    }

    @Test("retrying runs the operation until it succeeds and reports each failure with its wait")
    func retriesUntilSuccess() async throws {
        let attempts = Mutex(0)
        var reported: [Duration] = []
        let result = try await Backoff.retrying(
            Backoff(initial: .milliseconds(1), maximum: .milliseconds(4), fraction: { 1 }),
            onFailure: { _, wait in reported.append(wait) }
        ) {
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt < 4 { throw TestFailure() }
            return attempt
        }
        #expect(result == 4)
        #expect(reported == [.milliseconds(1), .milliseconds(2), .milliseconds(4)])
    }

    @Test("an error the caller does not retry is thrown at once")
    func nonRetryableErrorIsThrown() async {
        let attempts = Mutex(0)
        await #expect(throws: TestFailure.self) {
            try await Backoff.retrying(Backoff(initial: .milliseconds(1), maximum: .milliseconds(1)), isRetryable: { !($0 is TestFailure) }) {
                attempts.withLock { $0 += 1 }
                throw TestFailure()
            }
        }
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test("cancelling the task ends the retries with CancellationError")
    func cancellationEndsRetries() async {
        let task = Task {
            try await Backoff.retrying(Backoff(initial: .seconds(60), maximum: .seconds(60), fraction: { 1 })) { throw TestFailure() }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    private struct TestFailure: Error {}
}
