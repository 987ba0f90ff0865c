import Logging
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// Background work that runs every `interval` once the migrations ran, until shutdown: purges of tombstones,
/// idempotency keys and history past its retention. A failed round is logged and tried again at the next one.
/// Each job must be safe on every replica at once (they all run it).
public struct PeriodicJob: Service {
    let name: String
    let interval: Duration
    let startAfter: StartupLatch
    let logger: Logger
    let work: @Sendable (Logger) async throws -> Void

    public init(
        name: String, every interval: Duration, startAfter: StartupLatch, logger: Logger,
        work: @escaping @Sendable (Logger) async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.startAfter = startAfter
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await startAfter.wait()
        } onGracefulShutdown: {
            startAfter.open()
        }
        var logger = logger
        logger[metadataKey: "job"] = .string(name)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await work(logger)
            } catch {
                logger.warning("periodic job failed; next round at its interval", metadata: ["error": .string(LogSafeError.describe(error))])
            }
            // Sleeps until the next round; a shutdown or cancellation ends the sleep (and the job).
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
