import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresSupport
import ServiceDefaults
import TestSupport
import Testing

@testable import FoodsService

/// The real auth and foods services (schemas itest_auth and itest_foods, the real broker, the real USDA table) behind
/// the real gateway, with Open Food Facts' stand-in in place of Open Food Facts.
struct FoodsStack: Sendable {
    let gateway: any TestClientProtocol
    let clock: TestClock
    let off: OpenFoodFactsStandIn
    let foodsDatabase: PostgresPool

    static let routesJSON = """
        {
          "upstreams": { "auth": "http://127.0.0.1:1", "foods": "http://127.0.0.1:1" },
          "rateLimits": { "open": { "limit": 100000, "windowSeconds": 60, "per": "ip" } },
          "defaultRateLimit": "open",
          "routes": [
            { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/login", "upstream": "auth", "public": true },
            { "prefix": "/api/auth", "upstream": "auth", "public": false },
            { "prefix": "/api/users", "upstream": "auth", "public": false },
            { "prefix": "/api/foods", "upstream": "foods", "public": false },
            { "prefix": "/api/export/foods", "upstream": "foods", "public": false }
          ]
        }
        """

    /// Starts everything on emptied schemas and runs `body` against the gateway. `extra` adds foods settings.
    static func run(extra: [String: String] = [:], _ body: @Sendable (FoodsStack) async throws -> Void) async throws {
        let clock = TestClock()
        let auth = try await TestServices.auth(clock: clock)
        try await OpenFoodFactsStandIn.run { off in
            var values = try await TestServices.config(service: "foods")
            values["foods.food.data.file"] = TestEnvironment.foodDataFile.path
            values["foods.off.base.url"] = off.baseURL
            values["foods.off.user.agent"] = "NutritionAI-Tests/1.0 (tests@nutritionai.example)"
            values.merge(extra) { _, new in new }
            let foods = try await FoodsService.buildApplication(
                config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: { clock.now() })
            try await withRunning(auth.infrastructure.services + auth.services + foods.infrastructure.services + foods.services) {
                try await TestServices.live([("auth", auth), ("foods", foods)]) { clients in
                    try await IdentityStack.withGateway(routesJSON: routesJSON, upstreams: clients.mapValues { $0.port! }, clock: clock) { gateway in
                        try await body(FoodsStack(gateway: gateway, clock: clock, off: off, foodsDatabase: foods.infrastructure.postgres))
                    }
                }
            }
        }
    }
}

extension TestResponse {
    /// The `details` of an error answer.
    var details: [String: String] { (try? decoded(ErrorBody.self))?.error.details ?? [:] }

    /// The answer's JSON object, read loosely.
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:] }
}
