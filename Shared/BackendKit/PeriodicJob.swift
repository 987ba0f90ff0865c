import Logging
import Metrics
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// Background work that runs every `interval` once the migrations ran, until shutdown: purges of tombstones,
/// idempotency keys and history past its retention. Every replica wakes each interval, but a round runs only on the one
/// that claims it (`ScheduledRounds`), so N replicas run a job as often as one does. A failed round is logged and tried
/// again at the next one; a claim the database did not answer skips the round.
public struct PeriodicJob: Service {
    let name: String
    let interval: Duration
    let rounds: ScheduledRounds
    let startAfter: StartupLatch
    let logger: Logger
    let work: @Sendable (Logger) async throws -> Void

    public init(
        name: String, every interval: Duration, rounds: ScheduledRounds, startAfter: StartupLatch, logger: Logger,
        work: @escaping @Sendable (Logger) async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.rounds = rounds
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
            await runRound(logger: logger)
            // Sleeps until the next round; a shutdown or cancellation ends the sleep (and the job).
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// Claims this round and runs it when the claim succeeds; counts the outcome (`scheduled_job_rounds_total`).
    func runRound(logger: Logger) async {
        let outcome: String
        do {
            if try await rounds.claim(name, every: interval, logger: logger) {
                try await work(logger)
                outcome = "ran"
            } else {
                outcome = "claimed_elsewhere"
            }
        } catch {
            outcome = "failed"
            logger.warning("periodic job failed; next round at its interval", metadata: ["error": .string(LogSafeError.describe(error))])
        }
        Counter(label: "scheduled_job_rounds_total", dimensions: [("job", name), ("outcome", outcome)]).increment()
    }
}
