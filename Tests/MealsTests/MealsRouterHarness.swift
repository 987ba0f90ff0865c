import AsyncHTTPClient
import BackendKit
import ContractTesting
import FoodData
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServiceDefaults
import Synchronization
import TestSupport
import Testing

@testable import MealsService

/// The meals service's data routes (`MealsRoutes`) on an in-memory store, the real USDA table and fixed profiles,
/// answered through a client that checks every answer against the OpenAPI document.
final class MealsRouterHarness: Sendable {
    static let start = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    /// The largest photo accepted (`MEALS_UPLOAD_MAX_BYTES`), 1 MB here.
    static let maxImageBytes = 1024 * 1024

    let clock: RouterClock
    let store: InMemoryMealsStore
    let vision = InMemoryVisionStore()
    let profiles = FixedProfiles()
    let owner = UUID()
    let stranger = UUID()
    /// Whether users' vision keys can be stored (`MEALS_VISION_KEY_ENCRYPTION_KEY` is set).
    let visionKeysConfigured: Bool

    init(photosConfigured: Bool = true, visionKeysConfigured: Bool = true) {
        let clock = RouterClock(Self.start)
        self.clock = clock
        store = InMemoryMealsStore(photosConfigured: photosConfigured, now: { clock.now })
        self.visionKeysConfigured = visionKeysConfigured
    }

    /// Routes at `today`'s now, the owner's profile in its zone (a test about days; the stranger's profile stays UTC's).
    convenience init(today: TestToday) {
        self.init()
        clock.set(today.now)
        profiles.set(CallerProfile(scoring: .standard, timeZoneName: today.zoneName), for: owner)
    }

    func advance(seconds: Double) { clock.advance(seconds: seconds) }

    /// Runs `body` against the routes, then checks that every answer matched the OpenAPI document. `visionURL` is the
    /// base URL of the server's vision provider (a `FakeVisionProvider`); without one the server analyses no photos.
    func withRoutes(visionURL: URL? = nil, _ body: @Sendable (MealsClient) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "meals", checks: [])
        let now: @Sendable () -> Date = { [clock] in clock.now }
        let logger = Logger(label: "meals-router-test")
        let settings = visionURL.map {
            VisionSettings(
                baseURL: $0, apiKey: "sk-server-key", model: "vision-test-model", requestTimeout: .seconds(5), totalTimeout: .seconds(10),
                maxAttempts: 1, initialBackoff: .milliseconds(10))
        }
        let policy = VisionBaseURLPolicy(allowedPrivateHosts: ["127.0.0.1"])
        let vault = VisionKeyVault(
            store: vision, cipher: visionKeysConfigured ? VisionKeyCipher(keys: .random(id: "test")) : nil, now: now)
        let analyzers = PhotoAnalyzerChooser(
            server: settings.map { PhotoMealAnalyzer(provider: OpenAICompatibleVisionClient(settings: $0, httpClient: .shared, logger: logger)) },
            vault: vault, userProviders: UserVisionProviders(template: settings, httpClient: .shared, logger: logger), policy: policy)
        MealsRoutes(
            meals: store, customMeals: store, changeFeed: store, profiles: profiles, foods: TableFoods(meals: store),
            photoReader: AnalysisRequestReader(maxImageBytes: Self.maxImageBytes),
            photos: PhotoURLSigner(keys: .random(id: "test"), lifetime: 900, now: now), analyzers: analyzers, visionKeys: vault,
            keyCheck: VisionKeyCheck(httpClient: .shared, timeout: .seconds(5)), baseURLPolicy: policy, visionUsage: vision,
            visionPrices: try VisionPrices(table: "*=1000:1000"), now: now
        ).addRoutes(to: router)
        let owner = owner
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client) { checked in
                try await body(MealsClient(client: checked, owner: owner))
            }
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }
}

/// The time the routes and the store see, moved on by the test.
final class RouterClock: Sendable {
    private let value: Mutex<Date>

    init(_ start: Date) { value = Mutex(start) }

    var now: Date { value.withLock { $0 } }

    func advance(seconds: Double) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// Moves the time to `instant`.
    func set(_ instant: Date) { value.withLock { $0 = instant } }
}

/// Calls the routes as the gateway would after verifying a user's token: with the identity headers of `as` (the
/// harness's owner by default).
struct MealsClient: Sendable {
    let client: any TestClientProtocol
    let owner: UUID

    func call(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, as userId: UUID? = nil, headers extra: HTTPFields = [:],
        body: ByteBuffer? = nil
    ) async throws -> Answer {
        var headers: HTTPFields = [
            CallerIdentity.userIdHeader: (userId ?? owner).uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString,
        ]
        if json != nil { headers[.contentType] = "application/json" }
        headers.append(contentsOf: extra)
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body ?? json.map { ByteBuffer(string: $0) })
        return Answer(status: response.status, headers: response.headers, body: response.body)
    }

    /// A manual meal of `grams` of table food `foodId` (banana by default); its answer, which must be 201.
    func createMeal(
        foodId: String = "09040", grams: Double = 100, extra: String = "", as userId: UUID? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Answer {
        let answer = try await call(.post, "/api/meals", json: #"{"items":[{"foodId":"\#(foodId)","grams":\#(grams)}]\#(extra)}"#, as: userId)
        #expect(answer.status == .created, "\(answer.text)", sourceLocation: sourceLocation)
        return answer
    }
}

/// An answer with its JSON read loosely, as a client would.
struct Answer: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer

    var text: String { String(buffer: body) }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    /// The error code of an answer in the error shape.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }

    /// The fields an error answer names.
    var details: [String: Any] { (json["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:] }

    /// The `id` of the answer (a meal or custom meal), lower case as written.
    var id: String { json["id"] as? String ?? "" }

    func number(_ key: String) -> Double? { (json[key] as? NSNumber)?.doubleValue }

    func list(_ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
}

/// The real USDA table (`FoodTable`), with every nutrient of a food taken from its per-100 g profile, the test
/// products, and the meals of `meals` for which products a user logged.
struct TableFoods: FoodCatalogSource {
    var meals: InMemoryMealsStore?

    func catalog() throws -> FoodCatalog { FoodTable.catalog }

    func nutrients(of id: String, logger: Logger) async throws -> [String: Double]? {
        FoodTable.catalog.food(id: id).map { food in
            ["Energy": food.per100g.calories, "Protein": food.per100g.protein, "Total lipid (fat)": food.per100g.fat]
        }
    }

    func products(_ ids: Set<UUID>, logger: Logger) async throws -> [UUID: PackagedProduct] {
        TestProducts.all.filter { ids.contains($0.key) }
    }

    func namedInMeals(_ ids: Set<UUID>, of userId: UUID, logger: Logger) async throws -> Set<UUID> {
        meals?.productsNamed(ids, by: userId) ?? []
    }
}

/// Profiles the test sets per user; the UTC standard for everyone else.
final class FixedProfiles: CallerProfileSource {
    private let profiles = Mutex<[UUID: CallerProfile]>([:])

    func set(_ profile: CallerProfile, for userId: UUID) {
        profiles.withLock { $0[userId] = profile }
    }

    func profile(of userId: UUID, logger: Logger) async throws -> CallerProfile {
        profiles.withLock { $0[userId] } ?? .standard
    }
}
