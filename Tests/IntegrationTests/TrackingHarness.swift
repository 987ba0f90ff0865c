import BackendKit
import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import Testing

@testable import AuthService
@testable import MealsService
@testable import MetricsService
@testable import TrendsService

/// The real auth, metrics and trends services (and meals when asked) on emptied itest schemas and the real
/// broker, behind the real gateway, all sharing one movable clock.
struct TrackingStack: Sendable {
    let gateway: any TestClientProtocol
    let clock: TestClock
    let metricsDatabase: PostgresPool
    let trendsDatabase: PostgresPool

    static let routesJSON = """
        {
          "upstreams": { "auth": "http://127.0.0.1:1", "meals": "http://127.0.0.1:1", "metrics": "http://127.0.0.1:1", "trends": "http://127.0.0.1:1" },
          "rateLimits": { "open": { "limit": 100000, "windowSeconds": 60, "per": "ip" } },
          "defaultRateLimit": "open",
          "routes": [
            { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/login", "upstream": "auth", "public": true },
            { "prefix": "/api/auth", "upstream": "auth", "public": false },
            { "prefix": "/api/users", "upstream": "auth", "public": false },
            { "prefix": "/api/analyze", "upstream": "meals", "public": false },
            { "prefix": "/api/meals", "upstream": "meals", "public": false },
            { "prefix": "/api/metrics", "upstream": "metrics", "public": false },
            { "prefix": "/api/trends", "upstream": "trends", "public": false },
            { "prefix": "/api/user/stats", "upstream": "trends", "public": false },
            { "prefix": "/api/progress", "upstream": "trends", "public": false },
            { "prefix": "/api/history", "upstream": "trends", "public": false },
            { "prefix": "/api/calendar", "upstream": "trends", "public": false },
            { "prefix": "/api/achievements", "upstream": "trends", "public": false }
          ]
        }
        """

    /// Starts the services on emptied schemas and runs `body` against the gateway. The clock starts at `start`.
    static func run(withMeals: Bool = false, start: Date = Date(), _ body: @Sendable (TrackingStack) async throws -> Void) async throws {
        let clock = TestClock(start)
        let now: @Sendable () -> Date = { clock.now() }
        let auth = try await TestServices.auth(clock: clock)
        var applications: [(String, BackendApplication)] = [("auth", auth)]
        if withMeals {
            var values = try await TestServices.config(schema: "itest_meals")
            values["meals.food.data.file"] = TestEnvironment.foodDataFile.path
            values["meals.consumer.group"] = "itest-meals-\(UUID().uuidString.prefix(8))"
            applications.append(
                ("meals", try await MealsService.buildApplication(config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: now)))
        }
        var metricsValues = try await TestServices.config(schema: "itest_metrics")
        metricsValues["metrics.consumer.group"] = "itest-metrics-\(UUID().uuidString.prefix(8))"
        let metrics = try MetricsService.buildApplication(
            config: ConfigReaderFactory.make(metricsValues), logger: TestEnvironment.logger, now: now)
        var trendsValues = try await TestServices.config(schema: "itest_trends")
        trendsValues["trends.consumer.group"] = "itest-trends-\(UUID().uuidString.prefix(8))"
        let trends = try TrendsService.buildApplication(config: ConfigReaderFactory.make(trendsValues), logger: TestEnvironment.logger, now: now)
        applications += [("metrics", metrics), ("trends", trends)]

        try await withRunning(applications.flatMap { $0.1.infrastructure.services + $0.1.services }) {
            try await TestServices.live(applications) { clients in
                let ports = clients.mapValues { $0.port! }
                try await IdentityStack.withGateway(routesJSON: routesJSON, upstreams: ports, clock: clock) { gateway in
                    try await body(
                        TrackingStack(
                            gateway: gateway, clock: clock, metricsDatabase: metrics.infrastructure.postgres,
                            trendsDatabase: trends.infrastructure.postgres))
                }
            }
        }
    }

    /// A new user's access token and id.
    func signUp(_ name: String = "tracker") async throws -> (token: String, userId: UUID) {
        let session = try await gateway.register(email: "\(name)-\(UUID().uuidString.prefix(8))@example.com")
        return (session.accessToken, session.user.id)
    }

    /// Polls `uri` through the gateway until `condition` holds on its decoded answer; returns the last answer.
    func eventually<Answer: Decodable & Sendable>(
        _ uri: String, token: String, as type: Answer.Type, timeout: Duration = .seconds(30), until condition: @Sendable (Answer) -> Bool
    ) async throws -> Answer {
        try await gateway.eventually(uri, token: token, as: type, timeout: timeout, until: condition)
    }
}

/// Building blocks shared by the harnesses.
enum TestServices {
    /// The service configuration of `schema` (emptied first).
    static func config(schema: String) async throws -> [String: String] {
        let settings = try TestEnvironment.postgresSettings(schema: schema)
        try await withPostgres(settings) { try await emptySchema($0) }
        return TestEnvironment.serviceConfig(settings, schema: schema)
    }

    /// The auth service on an emptied itest_auth with a fresh signing key and mail folder.
    static func auth(
        clock: TestClock, mailDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID())"),
        extra: [String: String] = [:]
    ) async throws -> BackendApplication {
        var values = try await config(schema: "itest_auth")
        let seed = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        values["auth.signing.key"] = "itest:\(Base64URL.encode(seed))"
        values["auth.mail.directory"] = mailDirectory.path
        values.merge(extra) { _, new in new }
        return try await AuthService.buildApplication(config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: { clock.now() })
    }

    /// Serves every application live on loopback, waits until each is ready, and runs `body` with their clients by name.
    static func live(
        _ applications: [(String, BackendApplication)], clients: [String: any TestClientProtocol] = [:],
        _ body: @Sendable ([String: any TestClientProtocol]) async throws -> Void
    ) async throws {
        guard let (name, application) = applications.first else { return try await body(clients) }
        try await application.application.test(.live) { client in
            let ready = try await TestEnvironment.eventually(timeout: .seconds(60)) {
                try await client.execute(uri: "/health/ready", method: .get).status == .ok
            }
            #expect(ready, "the \(name) service did not become ready")
            var clients = clients
            clients[name] = client
            try await live(Array(applications.dropFirst()), clients: clients, body)
        }
    }
}
