import Foundation
import Hummingbird
import HummingbirdTesting
import Metrics
import MetricsTestKit
import ServiceDefaults
import Testing

/// A readiness check whose answer the test sets.
struct FixedCheck: ReadinessCheck {
    let name: String
    let fixed: ReadinessState
    init(name: String, up: Bool) { self.init(name: name, state: up ? .up : .down) }
    init(name: String, state: ReadinessState) {
        self.name = name
        self.fixed = state
    }
    func state() async -> ReadinessState { fixed }
}

/// A failure that carries internals which must never reach a client.
struct LeakyError: Error, CustomStringConvertible {
    var description: String { "SELECT password_hash FROM users -- at /srv/secret.swift:42" }
}

/// A dependency failure the test marks as temporary (the database restarting) or not.
struct DependencyFailure: TemporaryDependencyFailure, CustomStringConvertible {
    let isTemporary: Bool
    var description: String { "connection to 10.0.0.5:5432 lost during SELECT * FROM secrets" }
}

@Suite("Service router: health, metrics, error shape, request ids")
struct ServiceRouterTests {
    func makeApp(checks: [any ReadinessCheck], metrics: any MetricsFactory = TestMetrics()) -> some ApplicationProtocol {
        let router = ServiceRuntime.makeRouter(service: "demo", checks: checks, metrics: metrics)
        router.get("/boom") { _, _ -> String in throw LeakyError() }
        router.get("/database-restarting") { _, _ -> String in throw DependencyFailure(isTemporary: true) }
        router.get("/database-broken") { _, _ -> String in throw DependencyFailure(isTemporary: false) }
        router.get("/invalid") { _, _ -> String in throw APIError.invalid(["email": "must be an email address"]) }
        router.post("/echo") { request, context -> String in
            struct Body: Decodable { var name: String }
            return try await request.decode(as: Body.self, context: context).name
        }
        return Application(router: router)
    }

    func errorBody(_ response: TestResponse) throws -> ErrorBody {
        try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
    }

    @Test("ready is 200 when every dependency is up and 503 naming the one that is down")
    func readiness() async throws {
        try await makeApp(checks: [FixedCheck(name: "postgres", up: true), FixedCheck(name: "kafka", up: true)]).test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .ok)
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.checks == ["postgres": "up", "kafka": "up"])
            }
        }
        try await makeApp(checks: [FixedCheck(name: "postgres", up: false), FixedCheck(name: "kafka", up: true)]).test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] != nil)
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.status == "not_ready")
                #expect(report.checks["postgres"] == "down")
            }
            try await client.execute(uri: "/health/live", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("a degraded dependency keeps the service ready (200) but says so, per check and overall")
    func degradedReadiness() async throws {
        let checks: [any ReadinessCheck] = [FixedCheck(name: "postgres", up: true), FixedCheck(name: "events", state: .degraded)]
        try await makeApp(checks: checks).test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.retryAfter] == nil)
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.status == "degraded")
                #expect(report.checks == ["postgres": "up", "events": "degraded"])
            }
        }
        let downAndDegraded: [any ReadinessCheck] = [FixedCheck(name: "postgres", up: false), FixedCheck(name: "events", state: .degraded)]
        try await makeApp(checks: downAndDegraded).test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.status == "not_ready")
            }
        }
    }

    @Test("a replica still joining its consumer group is ready (200) and says events: waiting; degraded outranks it")
    func waitingReadiness() async throws {
        let joining: [any ReadinessCheck] = [FixedCheck(name: "postgres", up: true), FixedCheck(name: "events", state: .waiting)]
        try await makeApp(checks: joining).test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .ok)
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.status == "waiting")
                #expect(report.checks == ["postgres": "up", "events": "waiting"])
            }
        }
        let waitingAndDegraded: [any ReadinessCheck] = [
            FixedCheck(name: "kafka", state: .degraded), FixedCheck(name: "events", state: .waiting),
        ]
        try await makeApp(checks: waitingAndDegraded).test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .ok)
                let report = try JSONDecoder().decode(HealthController.Report.self, from: Data(buffer: response.body))
                #expect(report.status == "degraded")
            }
        }
    }

    @Test("an unexpected error is a 500 in the error shape that reveals nothing of its cause")
    func unexpectedErrorLeaksNothing() async throws {
        try await makeApp(checks: []).test(.router) { client in
            try await client.execute(uri: "/boom", method: .get) { response in
                #expect(response.status == .internalServerError)
                let text = String(buffer: response.body)
                #expect(!text.contains("SELECT"))
                #expect(!text.contains("secret"))
                let body = try errorBody(response)
                #expect(body.error.code == "internal_error")
                #expect(body.error.requestId == response.headers[.requestId])
            }
        }
    }

    @Test("a dependency that is briefly away is a 503 with Retry-After; a lasting failure stays a 500; neither leaks")
    func temporaryDependencyFailure() async throws {
        try await makeApp(checks: []).test(.router) { client in
            try await client.execute(uri: "/database-restarting", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "2")
                let body = try errorBody(response)
                #expect(body.error.code == "service_unavailable")
                #expect(!String(buffer: response.body).contains("10.0.0.5"))
            }
            try await client.execute(uri: "/database-broken", method: .get) { response in
                #expect(response.status == .internalServerError)
                let body = try errorBody(response)
                #expect(body.error.code == "internal_error")
                #expect(!String(buffer: response.body).contains("SELECT"))
            }
        }
    }

    @Test("validation errors are 422 and name each field")
    func validationErrors() async throws {
        try await makeApp(checks: []).test(.router) { client in
            try await client.execute(uri: "/invalid", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                let body = try errorBody(response)
                #expect(body.error.details == ["email": "must be an email address"])
            }
        }
    }

    @Test("malformed JSON is a 400 and an unknown route a 404, both in the error shape")
    func frameworkErrorsUseTheShape() async throws {
        try await makeApp(checks: []).test(.router) { client in
            try await client.execute(uri: "/echo", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{nope")) {
                response in
                #expect(response.status == .badRequest)
                let body = try errorBody(response)
                #expect(body.error.code == "bad_request")
            }
            try await client.execute(uri: "/no/such/route", method: .get) { response in
                #expect(response.status == .notFound)
                let body = try errorBody(response)
                #expect(body.error.code == "not_found")
            }
        }
    }

    @Test("a sane caller request id is kept; a hostile one is replaced")
    func requestIds() async throws {
        try await makeApp(checks: []).test(.router) { client in
            try await client.execute(uri: "/health/live", method: .get, headers: [.requestId: "client-abc.123"]) { response in
                #expect(response.headers[.requestId] == "client-abc.123")
            }
            try await client.execute(uri: "/health/live", method: .get, headers: [.requestId: "bad id\r\nX-Evil: 1"]) { response in
                let id = try #require(response.headers[.requestId])
                #expect(UUID(uuidString: id) != nil)
            }
        }
    }

    @Test("the public router does not serve /metrics: that is the admin server's")
    func noMetricsOnThePublicPort() async throws {
        try await makeApp(checks: []).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(!String(buffer: response.body).contains("hb_requests"))
            }
        }
    }
}
