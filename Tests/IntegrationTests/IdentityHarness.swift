import AccessTokens
import AsyncHTTPClient
import Configuration
import ContractTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOPosix
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import Synchronization
import TestSupport
import Testing

@testable import AuthService
@testable import Gateway

/// The real auth service (on the itest_auth schema, the real broker) behind the real gateway, both live on loopback;
/// the gateway polls the auth service's revocations as deployed (held up to 4 s, 500 ms apart).
struct IdentityStack: Sendable {
    let gateway: any TestClientProtocol
    let clock: TestClock
    let mailDirectory: URL
    let database: PostgresPool
    /// Where the auth service listens, for a second gateway in front of it.
    let authPort: Int

    /// Rate limits for these tests: generous, except the `auth` policy the rate-limit test exercises.
    static let routesJSON = """
        {
          "upstreams": { "auth": "http://127.0.0.1:1" },
          "rateLimits": {
            "auth": { "limit": 5, "windowSeconds": 900, "per": "ip" },
            "user": { "limit": 3, "windowSeconds": 3600, "per": "user" },
            "open": { "limit": 100000, "windowSeconds": 60, "per": "ip" }
          },
          "defaultRateLimit": "open",
          "routes": [
            { "prefix": "/api/auth/login", "upstream": "auth", "public": true, "rateLimit": "auth" },
            { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/refresh", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/password-reset", "upstream": "auth", "public": true },
            { "prefix": "/api/auth/sessions", "upstream": "auth", "public": false, "rateLimit": "user" },
            { "prefix": "/api/auth", "upstream": "auth", "public": false },
            { "prefix": "/api/users", "upstream": "auth", "public": false },
            { "prefix": "/api/sync/profile", "upstream": "auth", "public": false }
          ]
        }
        """

    /// The browser origin every test gateway allows (`GATEWAY_WEB_ORIGINS`).
    static let webOrigin = "https://app.nutritionai.test"

    /// Starts both on an emptied schema and runs `body` against the gateway.
    static func run(_ body: @Sendable (IdentityStack) async throws -> Void) async throws {
        let clock = TestClock()
        let mailDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        let auth = try await TestServices.auth(
            clock: clock, mailDirectory: mailDirectory, extra: ["auth.refresh.reuse.grace.seconds": "5"])
        try await withRunning(auth.infrastructure.services + auth.services) {
            try await auth.application.test(.live) { authClient in
                try await withGateway(routesJSON: routesJSON, upstreams: ["auth": authClient.port!], clock: clock) { gateway in
                    try await body(
                        IdentityStack(
                            gateway: gateway, clock: clock, mailDirectory: mailDirectory, database: auth.infrastructure.postgres,
                            authPort: authClient.port!))
                }
            }
        }
    }

    /// Runs the real gateway in front of the services on `upstreams` (name → port; `auth` serves the JWKS).
    static func withGateway(
        routesJSON: String, upstreams: [String: Int], clock: TestClock, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var routes = try JSONDecoder().decode(RouteTable.self, from: Data(routesJSON.utf8))
        for (name, port) in upstreams { routes.upstreams[name] = [URL(string: "http://127.0.0.1:\(port)")!] }
        try routes.validate()
        let authPort = upstreams["auth"] ?? 0
        let policy = AccessTokenPolicy(issuer: AccessTokenPolicy.defaultIssuer, audience: AccessTokenPolicy.defaultAudience)
        let settings = GatewaySettings(
            http: try HTTPServerSettings(config: ConfigReaderFactory.make([:]), defaultPort: 0), routes: routes,
            connectTimeout: .seconds(2), upstreamTimeout: .seconds(20), healthTimeout: .seconds(2), tokenPolicy: policy,
            jwksURL: URL(string: "http://127.0.0.1:\(authPort)/.well-known/jwks.json")!, jwksRefreshInterval: .seconds(300),
            trustedProxies: [IPNetwork("127.0.0.1")!, IPNetwork("::1")!], webOrigins: try WebOrigins(IdentityStack.webOrigin))
        // The gateway's own upstream client configuration: no client spans of its own, no retried connections.
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: upstreamClientConfiguration(settings))
        do {
            let verifier = AccessTokenVerifier(policy: policy)
            let refresher = JWKSRefresher(
                url: settings.jwksURL!, client: client, verifier: verifier, interval: .seconds(300), minimumGap: .seconds(30),
                logger: TestEnvironment.logger)
            #expect(await refresher.refresh(), "the gateway could not load the auth service's JWKS")
            let gatewayClock = GatewayClock(date: { clock.now() }, instant: { .now })
            let revocations = RevocationSync(staleAfter: .seconds(10))
            let poller = RevocationPoller(
                url: URL(string: "http://127.0.0.1:\(authPort)/internal/revocations")!, client: client, verifier: verifier, sync: revocations,
                interval: .milliseconds(500), wait: .seconds(4), now: gatewayClock.date, logger: TestEnvironment.logger)
            #expect(await poller.poll(after: nil) != nil, "the gateway could not load the auth service's revocations")
            // Inside an `OTLPTraceReceiver.run`, the pass-through's spans go to its receiver, as the other spans do.
            let spanExport = OTLPTraceReceiver.endpoint.map {
                SpanExport(
                    settings: SpanExportSettings(endpoint: $0, encoding: .json, scheduleDelay: .milliseconds(100)), client: client,
                    logger: TestEnvironment.logger)
            }
            let application = Gateway.makeGatewayApplication(
                settings: settings, client: client, verifier: verifier, apiDocument: try .bundled(),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)), clock: gatewayClock, revocations: revocations,
                tracing: spanExport.map(PassThroughTracing.init), logger: TestEnvironment.logger)
            try await withRunning([poller] + (spanExport.map { [$0] } ?? [])) {
                try await application.test(.live) { gateway in
                    let checked = ContractCheckingClient(gateway)
                    try await body(checked)
                    #expect(checked.problems.isEmpty, "answers that differ from the OpenAPI document:\n\(checked.problems.joined(separator: "\n"))")
                }
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}

/// JSON requests and answers through the gateway.
extension TestClientProtocol {
    /// Sends `json` (if any) with an optional bearer token and extra headers; returns status, headers and body.
    @discardableResult
    func call(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, token: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if json != nil { headers[.contentType] = "application/json" }
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    /// Registers a user (in the `form` given; `name` is ignored by `.emailAndPasswordOnly`) and returns the session
    /// answer.
    func register(
        email: String, password: String = "correct horse battery", name: String = "Test User", form: SignUpForm = .displayName
    ) async throws -> SessionAnswer {
        let response = try await call(.post, "/api/auth/register", json: form.body(email: email, password: password, name: name))
        #expect(response.status == .created, "registration of \(email) answered \(response.status)")
        return try response.decoded(SessionAnswer.self)
    }

    /// Registers a user with a fresh address made from `prefix`; returns the access token and user id.
    func signUp(_ prefix: String, displayName: String = "Test User") async throws -> (token: String, userId: UUID) {
        let session = try await register(email: "\(prefix)-\(UUID().uuidString.prefix(8))@example.com", name: displayName)
        return (session.accessToken, session.user.id)
    }

    func login(email: String, password: String = "correct horse battery", headers: HTTPFields = [:]) async throws -> TestResponse {
        try await call(.post, "/api/auth/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#, headers: headers)
    }
}

extension TestResponse {
    func decoded<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Value.self, from: Data(buffer: body))
    }

    /// The `error.code` of an error answer.
    var errorCode: String? { (try? decoded(ErrorBody.self))?.error.code }

    /// Whether this is the 401 of an ended session: `session_ended` from the auth service, or `invalid_token` from a
    /// gateway that already knows the revocation (within 2 s of the sign-out, so either may answer right after it).
    var isSessionEndedRefusal: Bool { status == .unauthorized && (errorCode == "session_ended" || errorCode == "invalid_token") }
}

/// The parts of a session answer the tests read.
struct SessionAnswer: Decodable {
    struct User: Decodable {
        var id: UUID
        var email: String
        var displayName: String
    }

    struct Profile: Decodable {
        var displayName: String
        var dietPreference: String
        var weightUnit: String
        var timeZone: String
        var version: Int
    }

    var token: String
    var accessToken: String
    var refreshToken: String
    var expiresAt: Date
    var sessionId: UUID
    var user: User
    var profile: Profile
}
