import AccessTokens
import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle

/// Keeps the verifier's keys current: fetches the auth service's JWKS at start (retrying with backoff until it
/// answers), then every `interval`, and early (at most once per `minimumGap`) when a token names an unknown key.
/// Requests never wait for a fetch.
struct JWKSRefresher: Service {
    let url: URL
    let client: HTTPClient
    let verifier: AccessTokenVerifier
    let interval: Duration
    let minimumGap: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await refreshPeriodically() }
                group.addTask { await refreshOnUnknownKeys() }
            }
        }
    }

    private func refreshPeriodically() async {
        var backoff = Duration.milliseconds(250)
        while !Task.isCancelled {
            if await refresh() {
                backoff = .milliseconds(250)
                try? await Task.sleep(for: interval)
            } else {
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(10))
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
        do {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(5), logger: logger)
            let body = try await response.body.collect(upTo: 256 * 1024)
            guard response.status == .ok else {
                logger.warning("JWKS fetch answered \(response.status.code)", metadata: ["url": .string(url.absoluteString)])
                return false
            }
            let before = verifier.keyIds
            try await verifier.replaceKeys(jwksJSON: Data(buffer: body))
            if verifier.keyIds != before {
                logger.info("token verification keys loaded", metadata: ["kids": .string(verifier.keyIds.sorted().joined(separator: ","))])
            }
            return true
        } catch {
            logger.warning("JWKS fetch failed", metadata: ["url": .string(url.absoluteString), "error": .string("\(error)")])
            return false
        }
    }
}
