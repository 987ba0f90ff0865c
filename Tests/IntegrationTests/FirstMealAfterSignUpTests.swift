import Foundation
import HTTPTypes
import HummingbirdTesting
import Messaging
import PostgresSupport
import ServiceDefaults
import Testing

@testable import MealsService

/// A user who registers with their zone and logs a meal at once, before the meals service has consumed the
/// registration's `user.profile_updated`: the write waits for the profile, so the meal is on the user's day, not UTC's.
@Suite("The first meal right after sign-up", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct FirstMealAfterSignUpTests {
    /// 2026-03-10 06:45 UTC: 23:45 on 2026-03-09 in Los Angeles.
    static let start = Date(timeIntervalSince1970: 1_773_125_100)

    static let routesJSON = """
        {
          "upstreams": { "auth": "http://127.0.0.1:1", "meals": "http://127.0.0.1:1" },
          "rateLimits": { "open": { "limit": 100000, "windowSeconds": 60, "per": "ip" } },
          "defaultRateLimit": "open",
          "routes": [
            { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
            { "prefix": "/api/meals", "upstream": "meals", "public": false }
          ]
        }
        """

    @Test("a meal logged before the registration's event reached meals (held back) is dated in the user's zone once it arrives")
    func mealWaitsForTheProfile() async throws {
        let clock = TestClock(Self.start)
        let auth = try await TestServices.auth(clock: clock)
        let arrivals = ProfileArrivals(capacity: 16, perUser: 4)
        // A wait far longer than the test: the answer can only come from the event's arrival, not from the deadline.
        let meals = try await TestServices.meals(clock: clock, extra: ["meals.profile.wait.seconds": "60"], profileArrivals: arrivals)
        // Auth's outbox relay is held back: the registration's event reaches the broker only when the test says so.
        let authRelay = try #require(auth.infrastructure.services.first { $0 is OutboxRelay })
        let authServices = auth.infrastructure.services.filter { !($0 is OutboxRelay) } + auth.services
        try await withRunning(authServices + meals.infrastructure.services + meals.services) {
            try await TestServices.live([("auth", auth), ("meals", meals)]) { clients in
                try await IdentityStack.withGateway(routesJSON: Self.routesJSON, upstreams: clients.mapValues { $0.port! }, clock: clock) {
                    gateway in
                    let email = "first-meal-\(UUID().uuidString.prefix(8).lowercased())@example.com"
                    let registered = try await gateway.call(
                        .post, "/api/auth/register",
                        json: #"{"email":"\#(email)","password":"correct horse battery","timeZone":"America/Los_Angeles"}"#)
                    #expect(registered.status == .created, "registration answered \(registered.status)")
                    let session = try registered.decoded(SessionAnswer.self)
                    // 23:30 on 2026-03-09 in Los Angeles, 2026-03-10 in UTC.
                    let logged = Task {
                        try await gateway.call(
                            .post, "/api/meals",
                            json:
                                #"{"eatenAt":"2026-03-10T06:30:00Z","items":[{"name":"Plate","grams":300,"calories":600,"protein":30,"carbs":60,"fat":20}]}"#,
                            token: session.accessToken)
                    }
                    let deadline = ContinuousClock.now + .seconds(30)
                    while arrivals.waitingCount(for: session.user.id) == 0 {
                        try #require(ContinuousClock.now < deadline, "the meal write did not wait for the profile")
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    try await withRunning([authRelay]) {
                        let response = try await logged.value
                        #expect(response.status == .created, "the meal write answered \(response.status): \(String(buffer: response.body))")
                        let meal = try response.decoded(MealAnswer.self)
                        #expect(meal.localDate == "2026-03-09", "the user's day in Los Angeles, not UTC's 2026-03-10")
                    }
                    #expect(arrivals.waitingCount(for: session.user.id) == 0)
                }
            }
        }
    }
}
