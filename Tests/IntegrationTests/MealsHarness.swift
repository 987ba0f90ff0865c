import AccessTokens
import AsyncHTTPClient
import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import Synchronization
import TestSupport
import Testing

@testable import AuthService
@testable import MealsService

/// The real auth and meals services (schemas itest_auth and itest_meals, the real broker, the real USDA
/// table) behind the real gateway; optionally a local vision provider that speaks the chat-completions protocol.
struct MealsStack: Sendable {
    let gateway: any TestClientProtocol
    let clock: TestClock
    /// The meals schema, for checks a client cannot make (purges).
    let mealsDatabase: PostgresPool
    let vision: ScriptedVisionProvider?

    static let routesJSON = """
        {
          "upstreams": { "auth": "http://127.0.0.1:1", "meals": "http://127.0.0.1:1" },
          "rateLimits": { "open": { "limit": 100000, "windowSeconds": 60, "per": "ip" } },
          "defaultRateLimit": "open",
          "routes": [
            { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/login", "upstream": "auth", "public": true },
            { "prefix": "/api/auth", "upstream": "auth", "public": false },
            { "prefix": "/api/users", "upstream": "auth", "public": false },
            { "prefix": "/api/users/vision-key", "upstream": "meals", "public": false },
            { "prefix": "/api/users/vision-usage", "upstream": "meals", "public": false },
            { "prefix": "/api/export/meals", "upstream": "meals", "public": false },
            { "prefix": "/api/analyze", "upstream": "meals", "public": false, "maxBodyBytes": 14745600 },
            { "prefix": "/api/meals", "upstream": "meals", "public": false, "maxBodyBytes": 14745600 },
            { "prefix": "/media/photos", "upstream": "meals", "public": true },
            { "prefix": "/api/custom-meals", "upstream": "meals", "public": false },
            { "prefix": "/api/sync/meals", "upstream": "meals", "public": false }
          ]
        }
        """

    /// Starts everything on emptied schemas and runs `body` against the gateway; `withVision` adds the scripted provider.
    static func run(withVision: Bool = false, _ body: @Sendable (MealsStack) async throws -> Void) async throws {
        let clock = TestClock()
        let auth = try await TestServices.auth(clock: clock)
        try await ScriptedVisionProvider.runIfNeeded(withVision) { vision in
            let meals = try await TestServices.meals(clock: clock, visionPort: vision?.port)
            try await withRunning(auth.infrastructure.services + auth.services + meals.infrastructure.services + meals.services) {
                try await TestServices.live([("auth", auth), ("meals", meals)]) { clients in
                    try await IdentityStack.withGateway(routesJSON: routesJSON, upstreams: clients.mapValues { $0.port! }, clock: clock) {
                        gateway in
                        try await body(
                            MealsStack(gateway: gateway, clock: clock, mealsDatabase: meals.infrastructure.postgres, vision: vision?.provider))
                    }
                }
            }
        }
    }

    /// A new user's access token.
    func signUp(_ name: String = "meals") async throws -> (token: String, userId: UUID) {
        try await gateway.signUp(name)
    }

    /// Analyses `text` for the token's user and returns the stored meal.
    func analyze(_ text: String, token: String) async throws -> MealAnswer {
        let response = try await gateway.call(.post, "/api/analyze", json: #"{"text":"\#(text)"}"#, token: token)
        #expect(response.status == .created, "analysis answered \(response.status): \(String(buffer: response.body))")
        return try response.decoded(MealAnswer.self)
    }

    /// How many meals of `userId` the meals schema holds.
    func storedMeals(of userId: UUID) async throws -> Int {
        try await userRows(in: "meals", of: userId, client: mealsDatabase)
    }
}

/// The parts of a meal answer the tests read.
struct MealAnswer: Decodable {
    struct Item: Decodable {
        var name: String
        var unit: String
        var grams: Double
        var foodId: String?
        var calories: Double
        var protein: Double
        var confidence: Double
        var source: String
        var reason: String
        var encouragement: String
        var healthScore: Health
        var flags: [String]
    }

    struct Health: Decodable {
        var score: Int
        var nutrientDensity: Int?
        var processing: Int?
        var goalAlignment: Int?
        var rating: String
    }

    struct Diet: Decodable {
        var diet: String
        var score: Int
        var band: String
        var explanation: String
    }

    struct Totals: Decodable {
        var calories: Double
        var protein: Double
    }

    var id: UUID
    var title: String
    var origin: String
    var mealType: String?
    var captureKind: String
    var localDate: String
    var isConsumed: Bool
    var notes: String?
    var edited: Bool
    var version: Int
    var items: [Item]
    var totals: Totals
    var healthScore: Health?
    var dietScore: Diet
    var unrecognised: [String]
    var photoUrl: String?
    var photoUrlExpiresAt: Date?
    var thumbnail: String?
    var thumbnailUrl: String?
}
