import AccessTokens
import Configuration
import Foundation
import ServiceDefaults

/// Everything the gateway reads at start; `GATEWAY_*` and `UPSTREAM_<NAME>_URL(S)` variables over the routes file.
struct GatewaySettings: Sendable {
    var http: HTTPServerSettings
    var routes: RouteTable
    /// Time allowed to open a connection to an upstream (`GATEWAY_CONNECT_TIMEOUT_SECONDS`, default 1): an address
    /// that does not accept one within it is ejected and the request goes to another.
    var connectTimeout: Duration
    /// Time allowed for an upstream's whole answer.
    var upstreamTimeout: Duration
    /// Time allowed for each upstream's readiness answer in `/health`.
    var healthTimeout: Duration
    /// What access tokens must say (`JWT_ISSUER`, `JWT_AUDIENCE`; defaults match the auth service's).
    var tokenPolicy: AccessTokenPolicy
    /// Where the auth service publishes its keys; default the `auth` upstream's `/.well-known/jwks.json`.
    var jwksURL: URL?
    /// How often the keys are fetched again (`GATEWAY_JWKS_REFRESH_SECONDS`, default 300).
    var jwksRefreshInterval: Duration
    /// Where the auth service lists revoked sessions (`GATEWAY_REVOCATIONS_URL`; default the `auth` upstream's
    /// `/internal/revocations`, a path the routes file does not expose).
    var revocationsURL: URL?
    /// The pause after each answer of that list before the next poll (`GATEWAY_REVOCATIONS_POLL_SECONDS`, default 0.5).
    var revocationsPollInterval: Duration = .milliseconds(500)
    /// How long the auth service may hold a poll until a session ends (`GATEWAY_REVOCATIONS_WAIT_SECONDS`, default 4; 0
    /// for plain polls every `revocationsPollInterval`): a sign-out reaches this gateway within a round trip, and an
    /// idle gateway asks about every 4.5 s. Kept below the stale bound less the poll's 2 s of round trip, so a held
    /// poll never reads as stale.
    var revocationsWait: Duration = .seconds(4)
    /// How long without a successful poll before readiness reports the revocations `stale`
    /// (`GATEWAY_REVOCATIONS_STALE_SECONDS`, default 10).
    var revocationsStaleAfter: Duration = .seconds(10)
    /// Proxies whose `X-Forwarded-For` is believed (`GATEWAY_TRUSTED_PROXIES`, comma-separated CIDRs; default none).
    var trustedProxies: [IPNetwork]
    /// Browser origins allowed by CORS and for cookie sessions (`GATEWAY_WEB_ORIGINS`, comma-separated; default none:
    /// no browser page may call the API with credentials, and cookie sessions are refused on unsafe methods).
    var webOrigins: WebOrigins = .none
    /// How often and how patiently each upstream address's readiness is asked (`UpstreamReadinessProber`).
    var probing = UpstreamProbing()
    /// Swagger UI's static files (`GATEWAY_DOCS_DIRECTORY`, the `static` folder of PyPI's swagger-ui-py, which
    /// `deploy/setup.sh` installs and `deploy/stack` passes); without them `/docs` answers 404.
    var docsDirectory: URL?
}

extension GatewaySettings {
    /// Reads the settings; the routes file is required.
    init(config: ConfigReader) throws {
        self.http = try HTTPServerSettings(config: config, defaultPort: 8080)
        let routesFile = config.string(forKey: "gateway.routes.file", default: "deploy/gateway-routes.json")
        var routes = try RouteTable.load(from: routesFile)
        try routes.overrideUpstreams(from: config)
        self.routes = routes
        self.connectTimeout = .seconds(config.double(forKey: "gateway.connect.timeout.seconds", default: 1))
        self.probing = try UpstreamProbing(config: config)
        self.upstreamTimeout = .seconds(config.double(forKey: "gateway.upstream.timeout.seconds", default: 30))
        self.healthTimeout = .seconds(config.double(forKey: "gateway.health.timeout.seconds", default: 2))
        self.tokenPolicy = AccessTokenPolicy(config: config)
        self.jwksURL = try Self.authURL(config, name: "jwks", path: ".well-known/jwks.json", routes: routes)
        self.jwksRefreshInterval = .seconds(config.double(forKey: "gateway.jwks.refresh.seconds", default: 300))
        self.revocationsURL = try Self.authURL(config, name: "revocations", path: "internal/revocations", routes: routes)
        self.revocationsPollInterval = .seconds(config.double(forKey: "gateway.revocations.poll.seconds", default: 0.5))
        self.revocationsStaleAfter = .seconds(config.double(forKey: "gateway.revocations.stale.seconds", default: 10))
        let wait = config.double(forKey: "gateway.revocations.wait.seconds", default: 4)
        guard wait >= 0, wait <= 30, .seconds(wait + 2) < revocationsStaleAfter else {
            throw ConfigurationError.invalid(
                "GATEWAY_REVOCATIONS_WAIT_SECONDS", reason: "must be from 0 to 30 and 2 s below GATEWAY_REVOCATIONS_STALE_SECONDS")
        }
        self.revocationsWait = .seconds(wait)
        self.trustedProxies = try config.string(forKey: "gateway.trusted.proxies", default: "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { text in
                guard let network = IPNetwork(text) else {
                    throw ConfigurationError.invalid("GATEWAY_TRUSTED_PROXIES", reason: "\(text) is not an address or CIDR network")
                }
                return network
            }
        self.docsDirectory = config.string(forKey: "gateway.docs.directory").map { URL(fileURLWithPath: $0, isDirectory: true) }
        let origins = config.string(forKey: "gateway.web.origins", default: "")
        do { self.webOrigins = try WebOrigins(origins) } catch let error as WebOrigins.InvalidOrigin {
            throw ConfigurationError.invalid("GATEWAY_WEB_ORIGINS", reason: "\(error.text) is not an origin such as https://app.example.com")
        }
    }

    /// `GATEWAY_<NAME>_URL` when set, else the `auth` upstream's first address's `path`.
    private static func authURL(_ config: ConfigReader, name: String, path: String, routes: RouteTable) throws -> URL? {
        guard let text = config.string(forKey: ConfigKey(["gateway", name, "url"])) else {
            return routes.upstreams["auth"]?.first.map { $0.appendingPathComponent(path) }
        }
        guard let url = URL(string: text) else { throw ConfigurationError.invalid("GATEWAY_\(name.uppercased())_URL", reason: "not a URL") }
        return url
    }
}
