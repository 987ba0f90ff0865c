import AccessTokens
import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceDefaults
import WireJSON

/// `GET /health`: the readiness of every upstream service, asked concurrently, plus the gateway's own: ready once it
/// holds the token verification keys and has loaded the revocation list once (`revocations`, when the gateway polls
/// one); `GET /health/ready` answers 503 until then. While no revocation poll has succeeded within the bound the
/// gateway keeps serving (200) with the revocations it knows and reports itself `degraded` here (see
/// docs/OPERATIONS.md, "Revocation at the edge"). Likewise while the shared rate-limit store is down
/// (`rate-limit-store: degraded`): the gateway serves on its own counts (docs/GATEWAY.md, "Rate limits across gateways").
/// An upstream with several addresses (replicas) is asked at each, and shows the best state among them: it serves as
/// long as one address does (the balancer sends requests there), and shows `not_ready` or `unreachable` only when no
/// address serves. Which addresses are in rotation is in `gateway_upstream_available_addresses` and the log.
struct GatewayHealthController: Sendable {
    /// The aggregated report.
    struct Report: Codable, Sendable, Equatable {
        /// `ready` when every part is ready, `degraded` otherwise: with 503 when a part is not ready or
        /// unreachable, with 200 when every part is ready but some report `degraded` (their events are late).
        var status: String
        /// Each part's state: `ready`, `degraded`, `not_ready` or `unreachable`; the gateway itself is `gateway`.
        var services: [String: String]
    }

    let upstreams: [String: [URL]]
    let client: HTTPClient
    let timeout: Duration
    let verifier: AccessTokenVerifier
    /// The revocation list's freshness; nil when this gateway polls none (tests without an auth service).
    var revocations: RevocationSync?
    /// Whether the shared rate-limit store answers; nil when this gateway counts alone.
    var rateLimitStore: RateLimitStoreStatus?
    /// Set once SIGTERM came; nil in tests that never stop the gateway.
    var shutdownGrace: ShutdownGrace?

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/health") { _, _ in try await report() }
        router.get("/health/live") { _, _ in Response(status: .ok) }
        router.get("/health/ready") { _, _ in Response(status: state() == "not_ready" ? .serviceUnavailable : .ok) }
    }

    /// The gateway's own state: `not_ready` without keys, before the first revocation load, before the shared rate-limit
    /// store's first statement, or during the shutdown grace (so that load balancers stop sending before it closes), `degraded` while the revocation list is stale or the
    /// rate-limit store is down (still serving), `ready` otherwise.
    func state() -> String {
        let revocations = revocations?.state()
        guard verifier.hasKeys, revocations != .loading, shutdownGrace?.isStopping != true, rateLimitStore?.isStarting != true else {
            return "not_ready"
        }
        return revocations == .stale || rateLimitStore?.isUp == false ? "degraded" : "ready"
    }

    func report() async throws -> Response {
        let states = await withTaskGroup(of: (String, String).self) { group in
            for (name, urls) in upstreams {
                group.addTask {
                    // Awaited before the tuple is made (see `HealthController`).
                    let state = await readiness(of: urls)
                    return (name, state)
                }
            }
            var states: [String: String] = ["gateway": state()]
            if let rateLimitStore { states["rate-limit-store"] = rateLimitStore.isUp ? "ready" : "degraded" }
            for await (name, state) in group { states[name] = state }
            return states
        }
        let allReady = states.values.allSatisfy { $0 == "ready" }
        let allServing = states.values.allSatisfy { $0 == "ready" || $0 == "degraded" }
        let body = try WireJSONEncoder().encode(Report(status: allReady ? "ready" : "degraded", services: states))
        return Response(
            status: allServing ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The best state among the addresses `bases`, asked at once.
    private func readiness(of bases: [URL]) async -> String {
        let order = ["ready", "degraded", "not_ready", "unreachable"]
        let states = await withTaskGroup(of: String.self) { group in
            for base in bases { group.addTask { await readiness(of: base) } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        return states.min { (order.firstIndex(of: $0) ?? order.count) < (order.firstIndex(of: $1) ?? order.count) } ?? "unreachable"
    }

    private func readiness(of base: URL) async -> String {
        let request = HTTPClientRequest(url: base.absoluteString + "/health/ready")
        guard let response = try? await client.execute(request, deadline: .now() + .init(timeout)) else { return "unreachable" }
        let body = try? await response.body.collect(upTo: 64 * 1024)
        return Self.state(status: response.status, body: body)
    }

    /// A part's state from its `/health/ready` answer: `degraded` when it is ready but says some dependency is
    /// degraded (`HealthController.Report.status`), `ready` or `not_ready` from the status code otherwise.
    static func state(status: HTTPResponseStatus, body: ByteBuffer?) -> String {
        guard status == .ok else { return "not_ready" }
        struct ReadyReport: Decodable { var status: String }
        let report = body.flatMap { try? JSONDecoder().decode(ReadyReport.self, from: $0) }
        return report?.status == "degraded" ? "degraded" : "ready"
    }
}
