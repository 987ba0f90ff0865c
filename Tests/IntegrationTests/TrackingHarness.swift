import BackendKit
import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import TestSupport
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
          "upstreams": {
            "auth": "http://127.0.0.1:1", "meals": "http://127.0.0.1:1", "metrics": "http://127.0.0.1:1", "trends": "http://127.0.0.1:1"
          },
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
            { "prefix": "/api/sync/metrics", "upstream": "metrics", "public": false },
            { "prefix": "/api/trends", "upstream": "trends", "public": false },
            { "prefix": "/api/user/stats", "upstream": "trends", "public": false },
            { "prefix": "/api/progress", "upstream": "trends", "public": false },
            { "prefix": "/api/history", "upstream": "trends", "public": false },
            { "prefix": "/api/calendar", "upstream": "trends", "public": false },
            { "prefix": "/api/summaries", "upstream": "trends", "public": false },
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
        if withMeals { applications.append(("meals", try await TestServices.meals(clock: clock))) }
        let metrics = try MetricsService.buildApplication(
            config: ConfigReaderFactory.make(try await TestServices.config(service: "metrics")), logger: TestEnvironment.logger, now: now)
        let trends = try TrendsService.buildApplication(
            config: ConfigReaderFactory.make(try await TestServices.config(service: "trends")), logger: TestEnvironment.logger, now: now)
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
        try await gateway.signUp(name)
    }

    /// Polls `uri` through the gateway until `condition` holds on its decoded answer; returns the last answer.
    func eventually<Answer: Decodable & Sendable>(
        _ uri: String, token: String, as type: Answer.Type, timeout: Duration = .seconds(30), until condition: @Sendable (Answer) -> Bool
    ) async throws -> Answer {
        try await gateway.eventually(uri, token: token, as: type, timeout: timeout, until: condition)
    }
}
