import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceDefaults
import ServiceLifecycle
import Synchronization
import Testing

@testable import SharingService

/// The sharing service's routes on an in-memory store, a stand-in for the meals service and the real card rasteriser,
/// answered through a client that checks every answer against the OpenAPI document.
final class SharingRouterHarness: Sendable {
    static let start = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z

    let store: InMemorySharingStore
    let meals = StandInMeals()
    let arrivals = MealArrivals(capacity: 8, perUser: 4)
    let clock = Mutex(SharingRouterHarness.start)
    let owner = UUID()

    /// How long a share request waits for its meal's event.
    let mealWaitLimit: Duration

    init(photosConfigured: Bool = true, mealWaitLimit: Duration = .milliseconds(300)) {
        store = InMemorySharingStore(photosConfigured: photosConfigured)
        self.mealWaitLimit = mealWaitLimit
    }

    var now: Date { clock.withLock { $0 } }

    func advance(days: Double) {
        clock.withLock { $0 = $0.addingTimeInterval(days * 86_400) }
    }

    /// Runs `body` against the routes with the views counter and the rasteriser running, then checks that every
    /// answer matched the OpenAPI document.
    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let views = ViewCounter(store: store, interval: .seconds(3600), logger: Logger(label: "test"))
        try await CardRasteriserTests.withRasteriser { rasteriser in
            let router = ServiceRuntime.makeRouter(service: "sharing", checks: [])
            SharingRoutes(
                store: store, meals: meals, views: views, renderer: try SharedPageRenderer.bundled(), rasteriser: rasteriser,
                publicBaseURL: "https://share.example", viewCacheLinks: 100,
                mealWait: MealWait(arrivals: arrivals, limit: mealWaitLimit, recheck: .milliseconds(20)),
                now: { [self] in now }
            ).addRoutes(to: router)
            try await Application(router: router).test(.router) { client in
                let problems = try await ContractCheckingClient.problems(of: client, body)
                #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
            }
        }
    }

    /// A meal of `userId` (the owner by default) as its events would leave it in the store, and as the meals service
    /// holds it.
    @discardableResult
    func meal(of userId: UUID? = nil, title: String = "Salmon bowl", hasPhoto: Bool = false, version: Int = 1) -> MealSnapshot {
        let totals = NutrientTotals(calories: 612, proteinGrams: 38, carbsGrams: 55, fatGrams: 24, fiberGrams: 7)
        let meal = MealSnapshot(
            mealId: UUID(), userId: userId ?? owner, title: title, origin: "photo", mealType: "lunch", captureKind: "full_meal",
            eatenAt: Self.start.addingTimeInterval(-3600), localDate: "2026-05-10", timeZone: "Europe/Berlin", isConsumed: true, edited: false,
            notes: nil, hasPhoto: hasPhoto,
            items: [
                MealSnapshotItem(
                    name: title, amount: 1, unit: "bowl", grams: 420, nutrients: totals, healthScore: 78, healthRating: "good", source: "estimate")
            ],
            totals: totals, healthScore: 78, healthRating: "good", dietPreference: "balanced", dietScore: 80, dietBand: "green",
            dietExplanation: "A balanced meal.", version: version)
        store.received(meal)
        meals.add(meal.mealId, of: meal.userId)
        return meal
    }

    /// Polls until a share request waits for `mealId`'s event (its first read found no meal). The deadline only ends a
    /// test that would hang: the unit tests run side by side on two cores, and a request may wait long for its turn.
    func untilShareWaits(for mealId: UUID) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while arrivals.waitingCount(for: mealId) == 0 {
            try #require(ContinuousClock.now < deadline, "no share request began to wait for the meal")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The identity headers the gateway adds for `userId` (the owner by default).
    func caller(_ userId: UUID? = nil, json: Bool = true) -> HTTPFields {
        var headers: HTTPFields = [
            CallerIdentity.userIdHeader: (userId ?? owner).uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString,
        ]
        if json { headers[.contentType] = "application/json" }
        return headers
    }

    /// Shares `mealId` as the owner and answers the link's token.
    func share(_ mealId: UUID, _ body: String = "{}", client: any TestClientProtocol) async throws -> String {
        let response = try await client.execute(
            uri: "/api/share/meal/\(mealId)", method: .post, headers: caller(), body: ByteBuffer(string: body))
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try Self.decode(Link.self, response).token
    }

    /// The parts of a link the tests read.
    struct Link: Decodable {
        var token: String
        var url: String
        var mealTitle: String?
        var status: String
        var includesPhoto: Bool
        var showsDisplayName: Bool
        var viewCount: Int
        var expiresAt: Date
    }

    struct LinkPage: Decodable {
        var links: [Link]
        var nextCursor: String?
    }

    /// The error shape's code; nil when the body is not in the error shape.
    static func errorCode(_ response: TestResponse) -> String? {
        try? JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error.code
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(buffer: response.body))
    }
}

/// The meals service as the sharing service asks it: the meals it holds and their owners, a photo per meal, or
/// unreachable; `whenAsked` runs as a `holds` question arrives (an event arriving meanwhile).
final class StandInMeals: MealsLookup {
    private struct State {
        var owners: [UUID: UUID] = [:]
        var photos: [UUID: MealPhoto] = [:]
        var reachable = true
        var photoCalls = 0
        var existenceCalls = 0
        var whenAsked: (@Sendable (UUID) -> Void)?
    }

    private let state = Mutex(State())

    func add(_ mealId: UUID, of userId: UUID) { state.withLock { $0.owners[mealId] = userId } }
    func add(_ photo: MealPhoto, for mealId: UUID) { state.withLock { $0.photos[mealId] = photo } }
    func setReachable(_ reachable: Bool) { state.withLock { $0.reachable = reachable } }
    func whenAsked(_ action: @escaping @Sendable (UUID) -> Void) { state.withLock { $0.whenAsked = action } }
    /// How often a photo was fetched.
    var calls: Int { state.withLock { $0.photoCalls } }
    /// How often the service was asked whether a meal exists.
    var existenceCalls: Int { state.withLock { $0.existenceCalls } }

    func photo(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> MealPhoto? {
        try state.withLock { state in
            state.photoCalls += 1
            guard state.reachable else {
                throw APIError.unavailable("The meal's photo cannot be copied right now; try again shortly or share without the photo.")
            }
            return state.owners[mealId] == caller.userId ? state.photos[mealId] : nil
        }
    }

    func holds(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> Bool {
        let (holds, action) = try state.withLock { state in
            state.existenceCalls += 1
            guard state.reachable else { throw APIError.unavailable("Whether this meal exists cannot be checked right now; try again shortly.") }
            return (state.owners[mealId] == caller.userId, state.whenAsked)
        }
        action?(mealId)
        return holds
    }
}
