import Configuration
import ServiceLifecycle
import Synchronization

/// Keeps the process serving for `grace` after SIGTERM, reporting not ready (`serving: down`) meanwhile, before
/// anything else is asked to stop. A stopping HTTP server closes its listener at once, and the kernel then resets
/// every connection still waiting in the listener's accept queue: on a busy service those are requests a client (or
/// the gateway) has already sent, which the fault run saw fail. Put it last in the service list: the group stops
/// services in reverse order, one after the other, so the listener closes only once the grace is over and load
/// balancers that watch readiness have stopped sending.
public final class ShutdownGrace: Service, ReadinessCheck {
    public let name = "serving"
    private let grace: Duration
    private let stopping = Atomic<Bool>(false)

    public init(grace: Duration) {
        self.grace = grace
    }

    /// The grace from `http.shutdown.grace.seconds` (`HTTP_SHUTDOWN_GRACE_SECONDS`), 1 s by default.
    public convenience init(config: ConfigReader) {
        self.init(grace: .seconds(config.double(forKey: "http.shutdown.grace.seconds", default: 1)))
    }

    public func state() async -> ReadinessState { isStopping ? .down : .up }

    /// Whether SIGTERM has come: the process serves out its grace, and reports not ready meanwhile.
    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: stop at once
        }
        stopping.store(true, ordering: .relaxed)
        try? await Task.sleep(for: grace)
    }
}
