import Foundation
import Hummingbird
import WireJSON

/// Serves `/health/live` (the process answers) and `/health/ready` (every dependency answers).
public struct HealthController: Sendable {
    /// The body of both health routes.
    public struct Report: ResponseEncodable, Decodable, Sendable, Equatable {
        /// `live`; or `ready`, `degraded` (every dependency answers, some late: still 200), `waiting` (ready, still taking
        /// up its share of the events: 200) or `not_ready` (503).
        public var status: String
        public var service: String
        /// Each dependency's state: `up`, `waiting`, `degraded` or `down`.
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

    /// Runs every check concurrently; 200 unless one is down, 503 with `Retry-After` then.
    func ready() async throws -> Response {
        let results = await withTaskGroup(of: (String, ReadinessState).self) { group in
            for check in checks {
                group.addTask {
                    // Awaited before the tuple is made: `(name, await ...)` can lose `name` in release builds of Swift
                    // 6.3.1 (docs/PERFORMANCE.md, "Load run 2").
                    let state = await check.state()
                    return (check.name, state)
                }
            }
            var results: [String: ReadinessState] = [:]
            for await (name, state) in group { results[name] = state }
            return results
        }
        let states = Set(results.values)
        let ready = !states.contains(.down)
        let status = !ready ? "not_ready" : states.contains(.degraded) ? "degraded" : states.contains(.waiting) ? "waiting" : "ready"
        let report = Report(status: status, service: service, checks: results.mapValues(\.rawValue))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if !ready { headers[.retryAfter] = "1" }
        let body = try WireJSONEncoder().encode(report)
        return Response(status: ready ? .ok : .serviceUnavailable, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
