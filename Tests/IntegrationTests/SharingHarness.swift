import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle
import TestSupport
import Testing

@testable import AuthService
@testable import MealsService
@testable import SharingService

/// The real auth, meals (with the scripted vision provider) and sharing services on emptied itest schemas and the
/// real broker, behind the real gateway, all on one movable clock.
struct SharingStack: Sendable {
    let gateway: any TestClientProtocol
    let clock: TestClock
    let sharingDatabase: PostgresPool
    let vision: ScriptedVisionProvider
    /// The sharing service's share requests that wait for a meal's first event.
    let arrivals: MealArrivals
    /// The meals service's outbox relay when the run holds meal events back (`holdMealEvents`): nothing the meals
    /// service writes reaches the broker until `releasingMealEvents` runs it.
    let heldMealRelay: (any Service)?

    /// The public base URL the sharing service is configured with.
    static let baseURL = "https://share.nutrition.test"

    static let routesJSON = """
        {
          "upstreams": { "auth": "http://127.0.0.1:1", "meals": "http://127.0.0.1:1", "sharing": "http://127.0.0.1:1" },
          "rateLimits": { "open": { "limit": 100000, "windowSeconds": 60, "per": "ip" } },
          "defaultRateLimit": "open",
          "routes": [
            { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/login", "upstream": "auth", "public": true },
            { "prefix": "/api/auth", "upstream": "auth", "public": false },
            { "prefix": "/api/users", "upstream": "auth", "public": false },
            { "prefix": "/api/analyze", "upstream": "meals", "public": false, "maxBodyBytes": 14745600 },
            { "prefix": "/api/meals", "upstream": "meals", "public": false },
            { "prefix": "/api/share/meal", "upstream": "sharing", "public": false },
            { "prefix": "/api/share", "upstream": "sharing", "public": true },
            { "prefix": "/shared", "upstream": "sharing", "public": true }
          ]
        }
        """

    /// Starts everything on emptied schemas and runs `body` against the gateway; `sharingSettings` are added to the
    /// sharing service's configuration. With `holdMealEvents` the meals service's outbox relay does not run (see
    /// `releasingMealEvents`).
    static func run(
        sharingSettings: [String: String] = [:], holdMealEvents: Bool = false, _ body: @Sendable (SharingStack) async throws -> Void
    ) async throws {
        let clock = TestClock()
        let now: @Sendable () -> Date = { clock.now() }
        let auth = try await TestServices.auth(clock: clock)
        let sharingConfig = try await TestServices.config(service: "sharing")
        try await ScriptedVisionProvider.runIfNeeded(true) { vision in
            let vision = try #require(vision)
            let meals = try await TestServices.meals(clock: clock, visionPort: vision.port)
            let mealsInfrastructure = meals.infrastructure.services.filter { !holdMealEvents || !($0 is OutboxRelay) }
            let heldRelay = holdMealEvents ? meals.infrastructure.services.first { $0 is OutboxRelay } : nil
            let arrivals = MealArrivals(capacity: 16, perUser: 4)
            try await withRunning(auth.infrastructure.services + auth.services + mealsInfrastructure + meals.services) {
                try await TestServices.live([("auth", auth), ("meals", meals)]) { clients in
                    // The sharing service needs the meals service's address (the photo copy), known only once it listens.
                    var values = sharingConfig
                    values["sharing.meals.url"] = "http://127.0.0.1:\(clients["meals"]!.port!)"
                    values["sharing.public.base.url"] = baseURL
                    values["sharing.meal.wait.seconds"] = "1"
                    values.merge(sharingSettings) { _, setting in setting }
                    let sharing = try SharingService.buildApplication(
                        config: ConfigReaderFactory.make(values), logger: TestEnvironment.logger, now: now, arrivals: arrivals)
                    try await withRunning(sharing.infrastructure.services + sharing.services) {
                        try await TestServices.live([("sharing", sharing)], clients: clients) { clients in
                            try await IdentityStack.withGateway(routesJSON: routesJSON, upstreams: clients.mapValues { $0.port! }, clock: clock) {
                                gateway in
                                try await body(
                                    SharingStack(
                                        gateway: gateway, clock: clock, sharingDatabase: sharing.infrastructure.postgres, vision: vision.provider,
                                        arrivals: arrivals, heldMealRelay: heldRelay))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs the held-back meals outbox relay while `body` runs: the meal events written so far reach the broker now.
    func releasingMealEvents(_ body: () async throws -> Void) async throws {
        let relay = try #require(heldMealRelay, "the run does not hold meal events back")
        try await withRunning([relay], body)
    }

    /// How many share requests wait for `mealId` now.
    func waitingShares(for mealId: UUID) -> Int { arrivals.waitingCount(for: mealId) }

    /// Polls until a share request waits for `mealId` (the request's first read found no meal).
    func untilShareWaits(for mealId: UUID) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while arrivals.waitingCount(for: mealId) == 0 {
            try #require(ContinuousClock.now < deadline, "no share request began to wait for the meal")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// A new user's access token and id; `name` is the display name.
    func signUp(_ name: String = "Sharer") async throws -> (token: String, userId: UUID) {
        try await gateway.signUp("share", displayName: name)
    }

    /// A manual meal of one item with `title` and `notes` (JSON-escaped by the caller when needed).
    func logMeal(title: String = "Salmon and greens", notes: String? = nil, calories: Double = 420, token: String) async throws -> UUID {
        var entry = #"{"title":"\#(title)","items":[{"name":"Plate","grams":350,"calories":\#(calories),"protein":32,"carbs":12,"fat":24}]"#
        if let notes { entry += #","notes":"\#(notes)""# }
        let response = try await gateway.call(.post, "/api/meals", json: entry + "}", token: token)
        #expect(response.status == .created, "manual entry answered \(response.status): \(String(buffer: response.body))")
        return try response.decoded(MealAnswer.self).id
    }

    /// Shares `mealId`, retrying while the sharing service has not seen the meal yet (409 `meal_not_ready`).
    func share(_ mealId: UUID, json: String = "{}", token: String) async throws -> TestResponse {
        try await gateway.shareWhenReady(mealId, json: json, token: token)
    }

    /// Shares `mealId` and returns the link.
    func shareLink(_ mealId: UUID, json: String = "{}", token: String) async throws -> LinkAnswer {
        let response = try await share(mealId, json: json, token: token)
        #expect(response.status == .created, "share answered \(response.status): \(String(buffer: response.body))")
        return try response.decoded(LinkAnswer.self)
    }

    /// Public GET of `path` through the gateway, without a token.
    func open(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await gateway.call(.get, path, headers: headers)
    }

    /// Waits until the public view of `token` satisfies `condition` (meal events take a moment to arrive).
    func eventuallyView(_ token: String, until condition: @Sendable (TestResponse) -> Bool) async throws -> TestResponse {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let response = try await open("/api/share/\(token)")
            if condition(response) || ContinuousClock.now >= deadline { return response }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The caller's links.
    func links(token: String) async throws -> [LinkAnswer] {
        let response = try await gateway.call(.get, "/api/share?limit=100", token: token)
        #expect(response.status == .ok, "list answered \(response.status)")
        return try response.decoded(LinkPageAnswer.self).links
    }
}

extension TestClientProtocol {
    /// Shares `mealId`, retrying while the sharing service has not seen the meal yet (409 `meal_not_ready`), up to 30 s.
    func shareWhenReady(_ mealId: UUID, json: String, token: String) async throws -> TestResponse {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let response = try await call(.post, "/api/share/meal/\(mealId.uuidString.lowercased())", json: json, token: token)
            if response.errorCode != "meal_not_ready" || ContinuousClock.now >= deadline { return response }
        }
    }
}

/// A link as the owner sees it.
struct LinkAnswer: Decodable, Sendable {
    var token: String
    var url: String
    var cardUrl: String
    var mealId: UUID
    var mealTitle: String?
    var shareText: String?
    var status: String
    var createdAt: Date
    var expiresAt: Date
    var includesPhoto: Bool
    var showsDisplayName: Bool
    var viewCount: Int
}

struct LinkPageAnswer: Decodable {
    var links: [LinkAnswer]
    var nextCursor: String?
}

/// The public view of a link.
struct SharedMealAnswer: Decodable {
    struct Meal: Decodable {
        struct Item: Decodable {
            var name: String
            var calories: Double
            var healthRating: String
        }
        struct Totals: Decodable {
            var calories: Double
            var proteinGrams: Double
        }
        struct Diet: Decodable {
            var diet: String
            var score: Int
            var band: String
        }
        struct Health: Decodable {
            var score: Int
            var rating: String
        }
        var name: String
        var notes: String?
        var eatenAt: Date
        var items: [Item]
        var totals: Totals
        var healthScore: Health?
        var dietScore: Diet
    }
    var token: String
    var meal: Meal
    var sharedBy: String?
    var expiresAt: Date
    var pageUrl: String
    var cardUrl: String
    var photoUrl: String?
}
