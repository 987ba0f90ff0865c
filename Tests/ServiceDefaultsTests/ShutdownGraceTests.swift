import Logging
import ServiceDefaults
import ServiceLifecycle
import Synchronization
import Testing

/// A service standing in for the HTTP server: records that it runs and when it is asked to stop.
final class StopRecorder: Service {
    let started = Atomic<Bool>(false)
    let askedToStop = Atomic<Bool>(false)

    func run() async throws {
        started.store(true, ordering: .relaxed)
        try? await gracefulShutdown()
        askedToStop.store(true, ordering: .relaxed)
    }
}

@Suite("Shutdown grace")
struct ShutdownGraceTests {
    @Test("on shutdown the grace first reports not ready while the services before it keep running, then lets them stop",
          .timeLimit(.minutes(1)))
    func graceComesBeforeTheServer() async throws {
        let server = StopRecorder()
        let grace = ShutdownGrace(grace: .milliseconds(500))
        let group = ServiceGroup(configuration: .init(services: [server, grace], logger: Logger(label: "shutdown-grace-test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while !server.started.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
            #expect(await grace.isReady())

            await group.triggerGracefulShutdown()
            while await grace.isReady() { try await Task.sleep(for: .milliseconds(5)) }
            let stoppedDuringGrace = server.askedToStop.load(ordering: .relaxed)
            #expect(!stoppedDuringGrace, "the server was asked to stop before the grace was over")

            try await tasks.waitForAll()
            let stoppedAfterGrace = server.askedToStop.load(ordering: .relaxed)
            #expect(stoppedAfterGrace)
        }
    }
}
