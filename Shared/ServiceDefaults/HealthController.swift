import Foundation
import Hummingbird

/// Serves `/health/live` (the process answers) and `/health/ready` (every dependency answers).
public struct HealthController: Sendable {
    /// The body of both health routes.
    public struct Report: ResponseEncodable, Decodable, Sendable, Equatable {
        /// `live`, `ready` or `not_ready`.
        public var status: String
        public var service: String
        /// Each dependency's state: `up` or `down`.
        public var checks: [String: String]
    }

    let service: String
    let checks: [any ReadinessCheck]

    public init(service: String, checks: [any ReadinessCheck]) {
        self.service = service
        self.checks = checks
    }

    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/health/live") { _, _ in Report(status: "live", service: service, checks: [:]) }
        router.get("/health/ready") { _, context in try await ready() }
    }

    /// Runs every check concurrently; 200 when all are up, 503 with `Retry-After` otherwise.
    func ready() async throws -> Response {
        let results = await withTaskGroup(of: (String, Bool).self) { group in
            for check in checks { group.addTask { (check.name, await check.isReady()) } }
            var results: [String: String] = [:]
            for await (name, up) in group { results[name] = up ? "up" : "down" }
            return results
        }
        let allUp = results.values.allSatisfy { $0 == "up" }
        let report = Report(status: allUp ? "ready" : "not_ready", service: service, checks: results)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if !allUp { headers[.retryAfter] = "1" }
        let body = try JSONEncoder().encode(report)
        return Response(status: allUp ? .ok : .serviceUnavailable, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
