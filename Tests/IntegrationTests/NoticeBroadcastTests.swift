import PostgresSupport
import Testing

/// Every wait here has an hour's timeout, so a wait that ends before the 30 s guard was ended by a notice, a close or
/// a cancellation, not by its timeout.
@Suite("Notice broadcast")
struct NoticeBroadcastTests {
    /// Whether `wait` returned before a 30 s guard.
    static func returns(_ wait: @escaping @Sendable () async -> Void) async -> Bool {
        (try? await TestEnvironment.result(of: { await wait() }, within: .seconds(30))) != nil
    }

    @Test("one notice wakes every waiter")
    func notifyWakesEveryone() async {
        let notices = NoticeBroadcast()
        let seen = notices.generation
        let waiters = (1...3).map { _ in Task { await Self.returns { await notices.wait(after: seen, timeout: .seconds(3600)) } } }
        try? await Task.sleep(for: .milliseconds(100))
        notices.notify()
        for waiter in waiters { #expect(await waiter.value) }
        #expect(notices.generation == seen + 1)
    }

    @Test("a notice sent after the generation was read and before the wait ends that wait at once")
    func noticeBeforeTheWait() async {
        let notices = NoticeBroadcast()
        let seen = notices.generation
        notices.notify()
        #expect(await Self.returns { await notices.wait(after: seen, timeout: .seconds(3600)) })
    }

    @Test("without a notice the wait lasts until its timeout")
    func timeoutEndsTheWait() async {
        let notices = NoticeBroadcast()
        let clock = ContinuousClock()
        let started = clock.now
        await notices.wait(after: notices.generation, timeout: .milliseconds(200))
        #expect(clock.now - started >= .milliseconds(200), "returned before its timeout without a notice")
    }

    @Test("close wakes the waiters and every later wait returns at once")
    func closeEndsEveryWait() async {
        let notices = NoticeBroadcast()
        let seen = notices.generation
        let waiter = Task { await Self.returns { await notices.wait(after: seen, timeout: .seconds(3600)) } }
        try? await Task.sleep(for: .milliseconds(100))
        notices.close()
        #expect(await waiter.value)
        #expect(await Self.returns { await notices.wait(after: notices.generation, timeout: .seconds(3600)) })
    }

    @Test("a cancelled waiter returns, and the others keep waiting for the notice")
    func cancellationEndsOneWait() async {
        let notices = NoticeBroadcast()
        let seen = notices.generation
        let cancelled = Task { await notices.wait(after: seen, timeout: .seconds(3600)) }
        let other = Task { await Self.returns { await notices.wait(after: seen, timeout: .seconds(3600)) } }
        try? await Task.sleep(for: .milliseconds(100))
        cancelled.cancel()
        #expect(await Self.returns { await cancelled.value })
        notices.notify()
        #expect(await other.value)
    }
}
