import BackendKit
import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Kafka
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import Synchronization
import TestSupport
import Testing

@testable import AuthService
@testable import FoodsService
@testable import MealsService
@testable import MetricsService
@testable import SharingService
@testable import TrendsService

/// Every service (auth, meals with the scripted vision provider, metrics, trends, sharing) on emptied itest schemas
/// and the real broker, behind the real gateway with the shipped route table, all on one movable clock; plus a tap
/// on every topic, so a journey can hold the events it caused to the AsyncAPI document.
struct FullStack: Sendable {
    let gateway: any TestClientProtocol
    let clock: TestClock
    let mailDirectory: URL
    let vision: ScriptedVisionProvider
    /// Each service's schema by service name, for the checks a client cannot make (the purge of a deleted account).
    let databases: [String: PostgresPool]
    let events: EventTap

    static let shareBaseURL = "https://nutrition.test"

    /// The shipped route table (deploy/gateway-routes.json), with every rate limit raised out of the journeys' way but
    /// those named in `limits`, which get the limit given.
    static func routesJSON(limits overrides: [String: Int] = [:]) throws -> String {
        let data = try Data(contentsOf: ContractDocuments.gatewayRoutes)
        guard var table = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var limits = table["rateLimits"] as? [String: [String: Any]]
        else { throw JourneyError("deploy/gateway-routes.json has no rateLimits") }
        for name in limits.keys { limits[name]?["limit"] = overrides[name] ?? 1_000_000 }
        table["rateLimits"] = limits
        return String(decoding: try JSONSerialization.data(withJSONObject: table), as: UTF8.self)
    }

    /// Starts everything on emptied schemas with the clock at `start`, and runs `body` against the gateway; `rateLimits`
    /// keeps those policies at the limit given (the others are raised out of the way).
    static func run(start: Date, rateLimits: [String: Int] = [:], _ body: @Sendable (FullStack) async throws -> Void) async throws {
        let clock = TestClock(start)
        let now: @Sendable () -> Date = { clock.now() }
        let mailDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        let auth = try await TestServices.auth(clock: clock, mailDirectory: mailDirectory)
        var emptied: [String: [String: String]] = [:]
        for name in ["foods", "metrics", "trends", "sharing"] { emptied[name] = try await TestServices.config(service: name) }
        let configs = emptied
        let routes = try routesJSON(limits: rateLimits)
        try await ScriptedVisionProvider.runIfNeeded(true) { vision in
            let vision = try #require(vision)
            let meals = try await TestServices.meals(clock: clock, visionPort: vision.port)
            let metrics = try MetricsService.buildApplication(
                config: ConfigReaderFactory.make(configs["metrics"]!), logger: TestEnvironment.logger, now: now)
            let trends = try TrendsService.buildApplication(
                config: ConfigReaderFactory.make(configs["trends"]!), logger: TestEnvironment.logger, now: now)
            // The journeys scan no barcode we lack: Open Food Facts is not asked (FoodsJourneyTests use its stand-in).
            var foodsValues = configs["foods"]!
            foodsValues["foods.food.data.file"] = TestEnvironment.foodDataFile.path
            foodsValues["foods.off.enabled"] = "false"
            let foods = try await FoodsService.buildApplication(
                config: ConfigReaderFactory.make(foodsValues), logger: TestEnvironment.logger, now: now)
            let first: [(String, BackendApplication)] = [
                ("auth", auth), ("meals", meals), ("foods", foods), ("metrics", metrics), ("trends", trends),
            ]
            try await withRunning(first.flatMap { $0.1.infrastructure.services + $0.1.services }) {
                try await TestServices.live(first) { clients in
                    // Sharing copies photos from meals, whose address is known only once it listens.
                    var sharingValues = configs["sharing"]!
                    sharingValues["sharing.meals.url"] = "http://127.0.0.1:\(clients["meals"]!.port!)"
                    sharingValues["sharing.public.base.url"] = shareBaseURL
                    let sharing = try SharingService.buildApplication(
                        config: ConfigReaderFactory.make(sharingValues), logger: TestEnvironment.logger, now: now)
                    try await withRunning(sharing.infrastructure.services + sharing.services) {
                        try await TestServices.live([("sharing", sharing)], clients: clients) { clients in
                            try await EventTap.run { tap in
                                try await IdentityStack.withGateway(routesJSON: routes, upstreams: clients.mapValues { $0.port! }, clock: clock) {
                                    gateway in
                                    let databases = Dictionary(
                                        uniqueKeysWithValues: (first + [("sharing", sharing)]).map { ($0.0, $0.1.infrastructure.postgres) })
                                    try await body(
                                        FullStack(
                                            gateway: gateway, clock: clock, mailDirectory: mailDirectory, vision: vision.provider,
                                            databases: databases, events: tap))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A new user, signed up in the seed's `form`: email, access token, refresh token and id.
    func signUp(_ name: String, password: String = "correct horse battery", form: SignUpForm = .displayName) async throws -> JourneyUser {
        let email = "\(name.lowercased())-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let session = try await gateway.register(email: email, password: password, name: name, form: form)
        let expectedName = form == .emailAndPasswordOnly ? String(email.prefix(while: { $0 != "@" })) : name
        #expect(session.profile.displayName == expectedName, "sign-up in the form \(form) named the user \(session.profile.displayName)")
        return JourneyUser(email: email, id: session.user.id, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// Signs in again (after the clock moved past the access token's life) and returns the fresh access token.
    func signIn(_ user: JourneyUser, password: String = "correct horse battery") async throws -> String {
        let response = try await gateway.login(email: user.email, password: password)
        #expect(response.status == .ok, "sign-in answered \(response.status)")
        return try response.decoded(SessionAnswer.self).accessToken
    }

    /// Sends `json` with the user's token and expects `status`; returns the answer.
    @discardableResult
    func expect(
        _ status: HTTPResponse.Status, _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, token: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestResponse {
        let response = try await gateway.call(method, uri, json: json, token: token)
        #expect(
            response.status == status, "\(method) \(uri) answered \(response.status): \(String(buffer: response.body))",
            sourceLocation: sourceLocation)
        return response
    }

    /// A consumed manual meal of one item of `calories` (25/45/30 protein/carbs/fat), `eatenAt` (ISO-8601) if given.
    func logMeal(_ title: String, calories: Double, mealType: String? = nil, eatenAt: String? = nil, token: String) async throws -> MealAnswer {
        var fields = [#""title":"\#(title)""#, #""items":[\#(TrendsPipelineTests.item(calories: calories))]"#]
        if let mealType { fields.append(#""mealType":"\#(mealType)""#) }
        if let eatenAt { fields.append(#""eatenAt":"\#(eatenAt)""#) }
        let response = try await expect(.created, .post, "/api/meals", json: "{\(fields.joined(separator: ","))}", token: token)
        return try response.decoded(MealAnswer.self)
    }

    /// Uploads a photo for analysis (the scripted provider answers) and returns the stored meal.
    func analyzePhoto(mealType: String, token: String) async throws -> MealAnswer {
        let response = try await gateway.execute(
            uri: "/api/analyze", method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: "multipart/form-data; boundary=\(PhotoUpload.boundary)"],
            body: PhotoUpload.body(PhotoUpload.png, mealType: mealType))
        #expect(response.status == .created, "photo analysis answered \(response.status): \(String(buffer: response.body))")
        return try response.decoded(MealAnswer.self)
    }

    /// Waits until every topic in `topics` carried an event about one of `users`, then checks every event about them
    /// against the AsyncAPI document; returns how many were checked per topic.
    @discardableResult
    func checkEvents(of users: [UUID], covering topics: Set<Topic>) async throws -> [String: Int] {
        let keys = Set(users.map { $0.uuidString.lowercased() })
        let wanted = Set(topics.map(\.rawValue))
        var seen: [(topic: String, value: [UInt8])] = []
        _ = try await TestEnvironment.eventually(timeout: .seconds(30)) {
            seen = events.events(keyedBy: keys)
            return wanted.isSubset(of: Set(seen.map(\.topic)))
        }
        let contract = try AsyncAPIContract.repository()
        var counts: [String: Int] = [:]
        for event in seen {
            counts[event.topic, default: 0] += 1
            let problems = contract.problems(topic: event.topic, event: Data(event.value))
            #expect(problems.isEmpty, "an event on \(event.topic) differs from the AsyncAPI document: \(problems)")
        }
        #expect(wanted.isSubset(of: Set(counts.keys)), "events seen \(counts), expected every one of \(wanted.sorted())")
        return counts
    }
}

/// A signed-up user of a journey.
struct JourneyUser: Sendable {
    var email: String
    var id: UUID
    var token: String
    var refreshToken: String

    var idPath: String { id.uuidString.lowercased() }
}

struct JourneyError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads every topic from now on (`ConsumerGroupStart`) with a group of its own and keeps what it read, so a test can look at the
/// events its actions caused (selected by their key, the user id).
final class EventTap: Sendable {
    private let read = Mutex<[(topic: String, key: String, value: [UInt8])]>([])

    /// Runs `body` while the tap reads.
    static func run(_ body: @Sendable (EventTap) async throws -> Void) async throws {
        let tap = EventTap()
        let configuration = KafkaConfiguration(
            bootstrapServers: TestEnvironment.brokers, clientId: "itest-event-tap", deliveryTimeout: .seconds(5),
            metadataRefreshInterval: .seconds(1), consumerCloseWait: .zero)
        let group = "itest-tap-\(UUID().uuidString.prefix(8))"
        try ConsumerGroupStart.atEnd(group: group)
        let consumer = try KafkaConsumer(
            configuration: configuration, groupId: group, topics: Topic.allCases.map(\.rawValue), logger: TestEnvironment.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await message in consumer.messages {
                    // Kept as sent: a key in upper case would not match the lower-case ids tests look for.
                    let key = message.key.map { String(decoding: $0, as: UTF8.self) } ?? ""
                    tap.read.withLock { $0.append((message.topic, key, message.value)) }
                }
            }
            defer { group.cancelAll() }
            try await body(tap)
        }
        await consumer.close()
    }

    /// The events read so far whose key is one of `keys`, in the order read.
    func events(keyedBy keys: Set<String>) -> [(topic: String, value: [UInt8])] {
        read.withLock { events in events.filter { keys.contains($0.key) }.map { ($0.topic, $0.value) } }
    }
}

/// A multipart photo upload as the apps send it.
enum PhotoUpload {
    static let boundary = "itest-boundary"
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 2000)

    static func body(_ image: [UInt8], mealType: String = "lunch") -> ByteBuffer {
        var body = ByteBuffer()
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"mealType\"\r\n\r\n\(mealType)\r\n")
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"meal.txt\"\r\n")
        body.writeString("Content-Type: application/octet-stream\r\n\r\n")
        body.writeBytes(image)
        body.writeString("\r\n--\(boundary)--\r\n")
        return body
    }
}

/// Polling reads through the gateway.
extension TestClientProtocol {
    /// Polls `uri` until `condition` holds on its decoded answer (events take a moment to reach the read models);
    /// returns the last answer.
    func eventually<Answer: Decodable & Sendable>(
        _ uri: String, token: String?, as type: Answer.Type, timeout: Duration = .seconds(30), until condition: @Sendable (Answer) -> Bool
    ) async throws -> Answer {
        let deadline = ContinuousClock.now + timeout
        while true {
            let response = try await call(.get, uri, token: token)
            #expect(response.status == .ok, "\(uri) answered \(response.status): \(String(buffer: response.body))")
            let answer = try response.decoded(Answer.self)
            if condition(answer) || ContinuousClock.now >= deadline { return answer }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// How many rows each table of the client's schema holds about `userId` (tables with a `user_id` column, and
/// auth's `users` by id); the `deleted_users` tombstones and auth's `revocations` are left out, they exist to remember a
/// deletion (a revocation refuses the deleted user's access tokens at the gateways, and goes when those have expired).
func rowsAbout(_ userId: UUID, client: PostgresPool) async throws -> [String: Int] {
    // A user's own rows (`user_id`) and the links to them in shared rows: the author of a product, the editor of its
    // versions, the reporter of a report (the foods service keeps those rows and drops the link).
    let columns = try await client.query(
        """
        SELECT table_name::text, column_name::text FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name IN ('user_id', 'author_id', 'editor_id', 'reporter_id')
          AND table_name NOT IN ('deleted_users', 'revocations')
        """, logger: TestEnvironment.logger)
    var found: [(table: String, column: String)] = []
    for try await (table, column) in columns.decode((String, String).self) { found.append((table, column)) }
    var counts: [String: Int] = [:]
    for (table, column) in found {
        let rows = try await client.query(
            "SELECT count(*) FROM \(unescaped: table) WHERE \(unescaped: column) = \(userId)", logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { counts["\(table).\(column)"] = count }
    }
    let users = try await client.query(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'users'",
        logger: TestEnvironment.logger)
    for try await hasUsers in users.decode(Int.self) where hasUsers == 1 {
        let rows = try await client.query("SELECT count(*) FROM users WHERE id = \(userId)", logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { counts["users"] = count }
    }
    return counts
}
