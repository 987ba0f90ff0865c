import Dispatch
import MetricsTestKit
import ServiceDefaults
import Testing

@testable import AuthService

@Suite("bcrypt pool: queue depth and refusals as metrics")
struct PasswordHasherTests {
    /// Polls `condition` until it holds, for at most about 10 s.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test("jobs waiting for the one thread show in auth_bcrypt_queue_depth; one past the limit is refused and counted")
    func queueDepthAndRefusals() async throws {
        let metrics = TestMetrics()
        let hasher = PasswordHasher(settings: .init(cost: 10, threads: 1, queueLimit: 3), metrics: metrics)
        let depth = try metrics.expectGauge("auth_bcrypt_queue_depth")
        let refusals = try metrics.expectCounter("auth_bcrypt_refusals_total")
        let gate = DispatchSemaphore(value: 0)
        let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await hasher.run() }
            // Holds the only thread until the gate opens; retried until `run` has started the pool.
            group.addTask {
                while true {
                    do {
                        return try await hasher.onPool {
                            startedSignal.yield()
                            gate.wait()
                        }
                    } catch is APIError {
                        throw TestFailure("the first job was refused")
                    } catch {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
            }
            for await _ in started { break }
            #expect(depth.lastValue == 0)
            for _ in 1...2 { group.addTask { _ = try await hasher.hash("correct horse battery") } }
            #expect(try await eventually { depth.lastValue == 2 })

            await #expect(throws: APIError.self) { try await hasher.hash("one too many") }
            #expect(refusals.totalValue == 1)
            #expect(depth.lastValue == 2)

            gate.signal()
            #expect(try await eventually { depth.lastValue == 0 })
            try await group.next()  // the blocking job
            try await group.next()
            try await group.next()
            group.cancelAll()
        }
        #expect(refusals.totalValue == 1)
    }
}

struct TestFailure: Error {
    var description: String
    init(_ description: String) { self.description = description }
}
