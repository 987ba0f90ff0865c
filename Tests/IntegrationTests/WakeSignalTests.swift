import PostgresSupport
import Testing

@Suite("Wake signal")
struct WakeSignalTests {
    @Test("a cancelled waiter returns instead of hanging (it used to block service shutdown until the process was killed)")
    func cancellationEndsTheWait() async {
        let signal = WakeSignal()
        let waiter = Task { await signal.wait(timeout: .seconds(3600)) }
        try? await Task.sleep(for: .milliseconds(100))
        waiter.cancel()
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await waiter.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(finished)
    }
}
