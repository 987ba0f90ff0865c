import AccessTokens
import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore

/// `GET /health`: the readiness of every upstream service, asked concurrently, plus the gateway's own
/// (ready once it holds the token verification keys).
struct GatewayHealthController: Sendable {
    /// The aggregated report.
    struct Report: Codable, Sendable, Equatable {
        /// `ready` when every upstream is ready, `degraded` otherwise.
        var status: String
        /// Each part's state: `ready`, `not_ready` or `unreachable`; the gateway itself is `gateway`.
        var services: [String: String]
    }

    let upstreams: [String: URL]
    let client: HTTPClient
    let timeout: Duration
    let verifier: AccessTokenVerifier

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/health") { _, _ in try await report() }
        router.get("/health/live") { _, _ in Response(status: .ok) }
        router.get("/health/ready") { _, _ in Response(status: verifier.hasKeys ? .ok : .serviceUnavailable) }
    }

    func report() async throws -> Response {
        let states = await withTaskGroup(of: (String, String).self) { group in
            for (name, url) in upstreams {
                group.addTask { (name, await readiness(of: url)) }
            }
            var states: [String: String] = ["gateway": verifier.hasKeys ? "ready" : "not_ready"]
            for await (name, state) in group { states[name] = state }
            return states
        }
        let allReady = states.values.allSatisfy { $0 == "ready" }
        let body = try JSONEncoder().encode(Report(status: allReady ? "ready" : "degraded", services: states))
        return Response(
            status: allReady ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func readiness(of base: URL) async -> String {
        let request = HTTPClientRequest(url: base.absoluteString + "/health/ready")
        guard let response = try? await client.execute(request, deadline: .now() + .init(timeout)) else { return "unreachable" }
        _ = try? await response.body.collect(upTo: 64 * 1024)
        return response.status == .ok ? "ready" : "not_ready"
    }
}
