import AsyncHTTPClient
import Logging
import NIOCore
import ServiceLifecycle

/// Asks every address of every upstream for `/health/ready`, all at once, every `probing.interval` after the previous
/// round ended, and tells each balancer: an address whose readiness answers non-2xx or not within `probing.timeout`
/// is ejected, one that answers 2xx again is back in rotation. A service in its shutdown grace answers 503 there, so
/// its gateway stops sending to it before it stops listening.
struct UpstreamReadinessProber: Service {
    let balancers: [UpstreamBalancer]
    let client: HTTPClient
    let probing: UpstreamProbing
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await probeAll()
                try? await Task.sleep(for: probing.interval)
            }
        }
    }

    /// One round: every address probed once, concurrently.
    func probeAll() async {
        await withTaskGroup(of: Void.self) { group in
            for balancer in balancers {
                for (index, endpoint) in balancer.endpoints.enumerated() {
                    group.addTask {
                        let started = balancer.failureMark
                        let ready = await isReady(endpoint)
                        // A probe cut short by shutdown says nothing about the address.
                        if !Task.isCancelled { balancer.probed(index, ready: ready, since: started) }
                    }
                }
            }
        }
    }

    private func isReady(_ endpoint: UpstreamEndpoint) async -> Bool {
        do {
            let response = try await client.execute(
                HTTPClientRequest(url: endpoint.base + "/health/ready"), timeout: .init(probing.timeout), logger: logger)
            // Read to the end so the connection serves the next probe.
            _ = try await response.body.collect(upTo: 64 * 1024)
            return (200..<300).contains(response.status.code)
        } catch {
            logger.debug("upstream readiness probe failed", metadata: ["address": .string(endpoint.label), "error": "\(error)"])
            return false
        }
    }
}
