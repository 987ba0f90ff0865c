import AccessTokens
import AsyncHTTPClient
import Foundation
import Logging
import Metrics
import NIOCore
import ServiceDefaults
import ServiceLifecycle

/// Keeps the verifier's revocations current: asks the auth service for the sessions ended since the last answer
/// (`GET /internal/revocations?after=<cursor>&wait=<seconds>`, all live ones the first time), which holds the answer
/// until a session ends or `wait` passes, and asks again `interval` after each answer; hands them to the
/// verifier, which drops the cached tokens they refuse. A failed poll is retried with backoff and keeps the cursor,
/// so nothing recorded meanwhile is skipped. Publishes `gateway_revocations_known` and
/// `gateway_revocations_sync_age_seconds` (time since the last successful poll) on every round, and counts failures
/// in `gateway_revocations_sync_failures_total`.
struct RevocationPoller: Service {
    let url: URL
    let client: HTTPClient
    let verifier: AccessTokenVerifier
    let sync: RevocationSync
    let interval: Duration
    /// How long the auth service may hold a poll with nothing new (zero: answer at once, a plain poll every `interval`).
    var wait: Duration = .zero
    /// The clock revocations expire by (the gateway's `GatewayClock.date`).
    let now: @Sendable () -> Date
    let logger: Logger
    /// Where the metrics go; tests pass their own.
    var metrics: any MetricsFactory = MetricsSystem.factory

    func run() async throws {
        await cancelWhenGracefulShutdown { await pollPeriodically() }
    }

    private func pollPeriodically() async {
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(5))
        var cursor: String?
        let known = Gauge(label: "gateway_revocations_known", factory: metrics)
        let age = Gauge(label: "gateway_revocations_sync_age_seconds", factory: metrics)
        while !Task.isCancelled {
            let next = await poll(after: cursor)
            known.record(verifier.revocations.count)
            if let syncAge = sync.age() { age.record(syncAge.timeInterval) }
            if let next {
                cursor = next
                backoff.reset()
                try? await Task.sleep(for: interval)
            } else {
                try? await Task.sleep(for: backoff.next())
            }
        }
    }

    /// One poll; the next cursor when it succeeded, nil when it failed.
    func poll(after cursor: String?) async -> String? {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var held = Duration.zero
        if let cursor {
            components?.queryItems = [URLQueryItem(name: "after", value: cursor)]
            if wait > .zero {
                held = wait
                components?.queryItems?.append(URLQueryItem(name: "wait", value: String(wait.timeInterval)))
            }
        }
        let target = components?.url?.absoluteString ?? url.absoluteString
        let page: RevocationPage
        do {
            let response = try await client.execute(HTTPClientRequest(url: target), timeout: .init(.seconds(2) + held), logger: logger)
            let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
            guard response.status == .ok else {
                logger.warning("revocation poll answered \(response.status.code)", metadata: ["url": .string(url.absoluteString)])
                return failed("status")
            }
            page = try RevocationPage.decoded(from: Data(buffer: body))
        } catch is DecodingError {
            logger.warning("revocation poll answer is unreadable", metadata: ["url": .string(url.absoluteString)])
            return failed("invalid")
        } catch {
            logger.warning("revocation poll failed", metadata: ["url": .string(url.absoluteString), "error": .string("\(error)")])
            return failed("unreachable")
        }
        let firstLoad = sync.age() == nil
        verifier.applyRevocations(page.revocations, now: now())
        sync.succeeded()
        if firstLoad { logger.info("revocations loaded", metadata: ["count": .stringConvertible(verifier.revocations.count)]) }
        return page.cursor
    }

    /// Counts a failed poll; always nil.
    private func failed(_ reason: String) -> String? {
        Counter(label: "gateway_revocations_sync_failures_total", dimensions: [("reason", reason)], factory: metrics).increment()
        return nil
    }
}
