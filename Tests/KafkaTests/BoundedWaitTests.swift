import NIOConcurrencyHelpers
import Testing

@testable import Kafka

/// The bounded wait that keeps a blocked librdkafka close from holding a stopping process.
@Suite("Bounded wait")
struct BoundedWaitTests {
    /// A gate that work waits at until the test opens it.
    final class Gate: Sendable {
        private let waiters = NIOLockedValueBox<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = waiters.withLockedValue { state -> Bool in
                    if !state.open { state.continuations.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let continuations = waiters.withLockedValue { state in
                state.open = true
                defer { state.continuations = [] }
                return state.continuations
            }
            for continuation in continuations { continuation.resume() }
        }
    }

    @Test("work that finishes in time is waited for")
    func finishing() async {
        let done = NIOLockedValueBox(false)
        let finished = await BoundedWait.finishes(within: .seconds(30)) { done.withLockedValue { $0 = true } }
        #expect(finished && done.withLockedValue { $0 })
    }

    @Test("work that never finishes is left behind at the limit")
    func blocked() async {
        let gate = Gate()
        let finished = await BoundedWait.finishes(within: .milliseconds(200)) { await gate.wait() }
        #expect(!finished)
        gate.open()
    }

    @Test("a cancelled wait ends at once, long before its limit")
    func cancelled() async {
        let gate = Gate()
        let waiting = Task { await BoundedWait.finishes(within: .seconds(3600)) { await gate.wait() } }
        waiting.cancel()
        #expect(await waiting.value == false)
        gate.open()
    }
}
