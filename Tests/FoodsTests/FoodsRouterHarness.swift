import ContractTesting
import FoodData
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceDefaults
import Synchronization
import Testing

@testable import FoodsService
@testable import FoodsTesting

/// The foods routes at the router level: the USDA table read from the setup's data file, products in memory, Open
/// Food Facts scripted; every answer checked against the OpenAPI document.
struct FoodsRouterHarness: Sendable {
    let owner = UUID()
    let stranger = UUID()
    let store = InMemoryProductStore()
    let source = ScriptedProductSource()
    let clock = TestClock(Date(timeIntervalSince1970: 1_795_000_000))
    /// The service's defaults: 3 counted reports hold, 5 reports and 20 products a day, established after 72 hours
    /// and 5 logged meals.
    var rules = CommunityRules()
    var refreshAfter: TimeInterval = 7 * 86400
    var missTTL: TimeInterval = 86400
    var openFoodFactsEnabled = true
    /// The look-up answers the routes keep, as the service keeps them (two seconds).
    var answers = BarcodeAnswerCache(lifetime: .seconds(2), capacity: 1000)

    static let generic: GenericFoodsLoader = {
        let loader = GenericFoodsLoader(dataFile: FoodsFixtures.usdaFile, logger: Logger(label: "foods-test"))
        do { try loader.load() } catch { fatalError("The USDA food file \(FoodsFixtures.usdaFile.path) is missing: run `bash deploy/setup.sh`.") }
        return loader
    }()

    var barcodes: BarcodeLookup {
        let clock = clock
        return BarcodeLookup(
            store: AnswerForgettingProductStore(base: store, answers: answers), source: openFoodFactsEnabled ? source : nil,
            refreshAfter: refreshAfter, missTTL: missTTL, now: { clock.now })
    }

    func withRoutes(_ body: @Sendable (FoodsClient) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "foods", checks: [])
        let clock = clock
        let products = AnswerForgettingProductStore(base: store, answers: answers)
        FoodController(
            generic: Self.generic, products: products, barcodes: barcodes, answers: answers, established: rules.establishedAccount,
            now: { clock.now }
        ).addRoutes(to: router)
        ProductController(store: products, rules: rules, now: { clock.now }).addRoutes(to: router)
        let owner = owner
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client) { checked in
                try await body(FoodsClient(client: checked, owner: owner))
            }
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    /// The admin routes (not in the OpenAPI document: never reachable through the gateway).
    func withAdminRoutes(_ body: @Sendable (FoodsClient) async throws -> Void) async throws {
        let clock = clock
        let products = AnswerForgettingProductStore(base: store, answers: answers)
        let router = AdminServer.makeRouter(
            routes: ProductReviewController(store: products, established: rules.establishedAccount, now: { clock.now }).routes)
        let owner = owner
        try await Application(router: router).test(.router) { client in try await body(FoodsClient(client: client, owner: owner)) }
    }
}

extension FoodsRouterHarness {
    /// A new account with the history the rules ask of an established one: registered 30 days ago, with 10 meals logged.
    func establishedAccount() throws -> UUID {
        let userId = UUID()
        try store.apply(FoodsTestEvents.profile(of: userId, at: clock.now.addingTimeInterval(-30 * 86400)), now: clock.now)
        for _ in 0..<10 { try store.apply(FoodsTestEvents.meal(UUID(), of: userId, at: clock.now.addingTimeInterval(-86400)), now: clock.now) }
        return userId
    }

    /// A new account registered a moment ago, with no meals: not established.
    func freshAccount() throws -> UUID {
        let userId = UUID()
        try store.apply(FoodsTestEvents.profile(of: userId, at: clock.now), now: clock.now)
        return userId
    }

    /// `userId` logs a consumed meal naming `productId` (as the meal event tells foods).
    func log(_ productId: String, by userId: UUID) throws {
        let product = try #require(UUID(uuidString: productId))
        try store.apply(FoodsTestEvents.meal(UUID(), of: userId, products: [product], at: clock.now), now: clock.now)
    }
}

/// Open Food Facts as the test scripts it: an answer per GTIN (none: "product not found"), and every GTIN asked.
final class ScriptedProductSource: ProductSource {
    private let state = Mutex<(answers: [GTIN: Result<OpenFoodFactsDocument.Reading, ProductSourceUnavailable>], asked: [GTIN])>(([:], []))

    func answer(_ gtin: GTIN, with result: Result<OpenFoodFactsDocument.Reading, ProductSourceUnavailable>) {
        state.withLock { $0.answers[gtin] = result }
    }

    var asked: [GTIN] { state.withLock { $0.asked } }

    func product(_ gtin: GTIN, logger: Logger) async throws -> OpenFoodFactsDocument.Reading {
        let answer = state.withLock { state in
            state.asked.append(gtin)
            return state.answers[gtin]
        }
        return try answer?.get() ?? .notFound
    }
}

/// The time the routes see, moved on by the test.
final class TestClock: Sendable {
    private let value: Mutex<Date>

    init(_ start: Date) { value = Mutex(start) }

    var now: Date { value.withLock { $0 } }

    func advance(seconds: Double) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Calls the routes as the gateway would after verifying a user's token: with the identity headers of `as`.
struct FoodsClient: Sendable {
    let client: any TestClientProtocol
    let owner: UUID

    func call(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, as userId: UUID? = nil, headers extra: HTTPFields = [:]
    ) async throws -> FoodsAnswer {
        var headers: HTTPFields = [
            CallerIdentity.userIdHeader: (userId ?? owner).uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString,
        ]
        if json != nil { headers[.contentType] = "application/json" }
        headers.append(contentsOf: extra)
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
        return FoodsAnswer(status: response.status, headers: response.headers, body: response.body)
    }

    /// Adds a product (201 expected) and answers it.
    func addProduct(
        barcode: String = "036000291452", name: String = "Greek yoghurt", as userId: UUID? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> FoodsAnswer {
        let answer = try await call(.post, "/api/foods/products", json: FoodsFixtures.draft(barcode: barcode, name: name), as: userId)
        #expect(answer.status == .created, "\(answer.text)", sourceLocation: sourceLocation)
        return answer
    }
}

/// An answer with its JSON read loosely, as a client would.
struct FoodsAnswer: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer

    var text: String { String(buffer: body) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:] }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    var details: [String: Any] { (json["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:] }
    var id: String { json["id"] as? String ?? "" }
    func object(_ key: String) -> [String: Any] { json[key] as? [String: Any] ?? [:] }
    func list(_ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
}

/// What several foods tests share: the USDA data file, the stand-in's product documents, a product body.
enum FoodsFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The file the setup step writes (`NUTRITION_FOOD_DATA_FILE`, else `.local/foods/usda_sr24.jsonl`).
    static let usdaFile: URL = {
        if let path = ProcessInfo.processInfo.environment["NUTRITION_FOOD_DATA_FILE"] { return URL(fileURLWithPath: path) }
        return repository.appendingPathComponent(".local/foods/usda_sr24.jsonl")
    }()

    /// The Open Food Facts stand-in's answer for `code` (Tests/StandIns/open_food_facts/products).
    static func openFoodFactsAnswer(_ code: String) throws -> Data {
        try Data(contentsOf: repository.appendingPathComponent("Tests/StandIns/open_food_facts/products/\(code).json"))
    }

    /// A valid product body (a Greek yoghurt per 100 g), with the members of the JSON object `changes` set over it.
    /// A community product of `barcode` (valid), offered, with `BarcodeRoutesTests.yoghurt`'s details.
    static func product(barcode: String) -> Product {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        return Product(
            id: UUID(), gtin: GTIN(barcode)!, source: .community, authorId: UUID(), details: BarcodeRoutesTests.yoghurt, version: 1,
            status: .offered, createdAt: now, updatedAt: now, fetchedAt: nil)
    }

    static func draft(barcode: String, name: String = "Greek yoghurt", changes: String = "{}") -> String {
        var body: [String: Any] = [
            "barcode": barcode, "name": name, "brand": "Dairy Hill", "servingSize": ["amount": 150, "unit": "g"],
            "per100g": ["calories": 60, "protein": 10, "carbs": 3.6, "fat": 0.4, "sugars": 3.6, "saturatedFat": 0.1, "salt": 0.1],
            "allergens": ["milk"], "vegetarian": true,
        ]
        let overrides = (try? JSONSerialization.jsonObject(with: Data(changes.utf8))) as? [String: Any] ?? [:]
        body.merge(overrides) { _, new in new }
        return String(decoding: try! JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), as: UTF8.self)
    }
}
