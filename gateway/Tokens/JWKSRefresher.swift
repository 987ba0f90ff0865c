import AccessTokens
import AsyncHTTPClient
import Foundation
import Logging
import Metrics
import NIOCore
import ServiceDefaults
import ServiceLifecycle

/// Keeps the verifier's keys current: fetches the auth service's JWKS at start (retrying with backoff until it
/// answers), then every `interval`, and early (at most once per `minimumGap`) when a token names an unknown key.
/// Requests never wait for a fetch. Each failed fetch counts in `gateway_jwks_refresh_failures_total` by reason:
/// `unreachable` (no answer), `status` (an answer other than 200), `invalid` (no usable key in it).
struct JWKSRefresher: Service {
    let url: URL
    let client: HTTPClient
    let verifier: AccessTokenVerifier
    let interval: Duration
    let minimumGap: Duration
    let logger: Logger
    /// Where the failure counter goes; tests pass their own.
    var metrics: any MetricsFactory = MetricsSystem.factory

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await refreshPeriodically() }
                group.addTask { await refreshOnUnknownKeys() }
            }
        }
    }

    private func refreshPeriodically() async {
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(10))
        while !Task.isCancelled {
            if await refresh() {
                backoff.reset()
                try? await Task.sleep(for: interval)
            } else {
                try? await Task.sleep(for: backoff.next())
            }
        }
    }

    private func refreshOnUnknownKeys() async {
        var last = ContinuousClock.now - minimumGap
        for await _ in verifier.unknownKeySightings {
            guard ContinuousClock.now - last >= minimumGap else { continue }
            last = .now
            await refresh()
        }
    }

    /// One fetch; true when the keys were replaced.
    @discardableResult
    func refresh() async -> Bool {
        let body: ByteBuffer
        do {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(5), logger: logger)
            body = try await response.body.collect(upTo: 256 * 1024)
            guard response.status == .ok else {
                logger.warning("JWKS fetch answered \(response.status.code)", metadata: ["url": .string(url.absoluteString)])
                return failed("status")
            }
        } catch {
            logger.warning("JWKS fetch failed", metadata: ["url": .string(url.absoluteString), "error": .string("\(error)")])
            return failed("unreachable")
        }
        let before = verifier.keyIds
        do {
            try await verifier.replaceKeys(jwksJSON: Data(buffer: body))
        } catch {
            logger.warning("JWKS answer has no usable key", metadata: ["url": .string(url.absoluteString), "error": .string("\(error)")])
            return failed("invalid")
        }
        if verifier.keyIds != before {
            logger.info("token verification keys loaded", metadata: ["kids": .string(verifier.keyIds.sorted().joined(separator: ","))])
        }
        return true
    }

    /// Counts a failed fetch; always false.
    private func failed(_ reason: String) -> Bool {
        Counter(label: "gateway_jwks_refresh_failures_total", dimensions: [("reason", reason)], factory: metrics).increment()
        return false
    }
}
