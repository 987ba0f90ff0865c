import Logging
import PostgresSupport
import ServiceLifecycle

/// The background work of the shared rate limits, until shutdown: applies the store's migrations (the store counts
/// as down until they are), refills the leases `SharedRateLimiter` asks for, tries a store that failed again every
/// `retryInterval` (so limits are shared again within about that long of its return, with or without traffic), and
/// deletes closed windows every `cleanupInterval`. Every gateway runs it; each part is safe on all at once.
struct RateLimitStoreService: Service {
    let limiter: SharedRateLimiter
    let retryInterval: Duration
    let cleanupInterval: Duration
    let clock: GatewayClock
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await refillLeases() }
                group.addTask { await watchStore() }
            }
        }
        limiter.finishRefills()
    }

    private func refillLeases() async {
        for await request in limiter.refillRequests {
            guard !Task.isCancelled else { return }
            await limiter.refill(request, now: clock.instant)
        }
    }

    private func watchStore() async {
        let store = limiter.store
        var prepared = false
        var lastCleanup = ContinuousClock.now
        while !Task.isCancelled {
            if !prepared || !limiter.status.isUp {
                do {
                    if prepared { try await store.ping() } else { try await store.prepare() }
                    prepared = true
                    limiter.status.succeeded()
                } catch {
                    limiter.status.failed(error)
                }
            } else if lastCleanup.duration(to: .now) >= cleanupInterval {
                lastCleanup = .now
                do {
                    let deleted = try await store.deleteClosedWindows()
                    logger.debug("closed rate-limit windows deleted", metadata: ["count": "\(deleted)"])
                } catch {
                    // A slow clean-up (a long DELETE) says nothing of the counting statements: it does not mark the store down.
                    logger.warning(
                        "closed rate-limit windows not deleted; next round at the clean-up interval",
                        metadata: ["error": .string(LogSafeError.describe(error))])
                }
            }
            try? await Task.sleep(for: retryInterval)
        }
    }
}
