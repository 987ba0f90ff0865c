import Foundation

/// Which upstream serves which path prefix, whether the route needs a signed-in user, and its rate limit.
/// Loaded from a JSON file (`GATEWAY_ROUTES_FILE`); an upstream has one address or several (replicas, balanced by
/// `UpstreamBalancer`), and the addresses may be overridden per environment (`RouteTable+Environment.swift`).
public struct RouteTable: Sendable, Decodable, Equatable {
    /// One routing rule.
    public struct Route: Sendable, Decodable, Equatable {
        /// Path prefix matched on whole segments: `/api/meals` matches `/api/meals/1`, not `/api/mealsx`.
        public var prefix: String
        /// Key into `upstreams`.
        public var upstream: String
        /// Public routes pass without a token (registration, login, shared links, health).
        public var isPublic: Bool
        /// Name of the rate-limit policy; the table's `defaultRateLimit` when absent. Routes sharing a policy share its counters.
        public var rateLimit: String?
        /// Largest request body for this route (photo uploads); the gateway's `GATEWAY_HTTP_MAX_BODY_BYTES` when absent.
        public var maxBodyBytes: Int?

        enum CodingKeys: String, CodingKey {
            case prefix, upstream, rateLimit, maxBodyBytes
            case isPublic = "public"
        }

        public init(prefix: String, upstream: String, isPublic: Bool, rateLimit: String? = nil, maxBodyBytes: Int? = nil) {
            self.prefix = prefix
            self.upstream = upstream
            self.isPublic = isPublic
            self.rateLimit = rateLimit
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// The upstream name of routes the gateway answers itself (`/api/sync/changes`, `/api/sync/conflicts`,
    /// `/api/sync/import`, `/api/export`, composed from several services). Such a route needs no address: it goes
    /// through the admission (token, rate limit) like any other, then to the gateway's router. This keeps one admission and one place (the routes file) deciding
    /// whether a path is public and how it is limited, instead of a second list of exceptions in code.
    public static let gatewayUpstream = "gateway"

    /// Each upstream's addresses, in the order written; never empty once validated.
    public var upstreams: [String: [URL]]
    public var routes: [Route]
    /// Named rate-limit policies.
    var rateLimits: [String: RateLimitPolicy]
    /// The policy of routes that name none; nil for no limit.
    var defaultRateLimit: String?

    init(upstreams: [String: [URL]], routes: [Route], rateLimits: [String: RateLimitPolicy] = [:], defaultRateLimit: String? = nil) {
        self.upstreams = upstreams
        self.routes = routes.sorted { $0.prefix.count > $1.prefix.count }
        self.rateLimits = Dictionary(
            uniqueKeysWithValues: rateLimits.map { name, policy in
                var named = policy
                named.name = name
                return (name, named)
            })
        self.defaultRateLimit = defaultRateLimit
    }

    public init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey { case upstreams, routes, rateLimits, defaultRateLimit }
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            upstreams: try container.decode([String: UpstreamURLList].self, forKey: .upstreams).mapValues(\.urls),
            routes: try container.decode([Route].self, forKey: .routes),
            rateLimits: try container.decodeIfPresent([String: RateLimitPolicy].self, forKey: .rateLimits) ?? [:],
            defaultRateLimit: try container.decodeIfPresent(String.self, forKey: .defaultRateLimit))
    }

    /// The rate-limit policy that applies to `route`, if any.
    func rateLimitPolicy(for route: Route) -> RateLimitPolicy? {
        (route.rateLimit ?? defaultRateLimit).flatMap { rateLimits[$0] }
    }

    /// Reads the table from a JSON file and checks that every route names a known upstream.
    public static func load(from path: String) throws -> RouteTable {
        let table = try JSONDecoder().decode(RouteTable.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        try table.validate()
        return table
    }

    /// Throws when a route names an upstream that has no address (other than the gateway itself, which must have
    /// none), when an upstream's address is not a plain `http://host:port` or is written twice, when a
    /// route names a rate limit that is not defined, or when a policy could never admit a request.
    public func validate() throws {
        if upstreams[Self.gatewayUpstream] != nil { throw RouteTableError.reservedUpstream(Self.gatewayUpstream) }
        for (name, urls) in upstreams {
            if urls.isEmpty { throw RouteTableError.noAddress(name) }
            for url in urls where !Self.isUpstreamBase(url) { throw RouteTableError.invalidAddress(upstream: name, address: url.absoluteString) }
            if Set(urls).count < urls.count { throw RouteTableError.repeatedAddress(name) }
        }
        for route in routes where route.upstream != Self.gatewayUpstream && upstreams[route.upstream] == nil {
            throw RouteTableError.unknownUpstream(route: route.prefix, upstream: route.upstream)
        }
        for name in routes.compactMap(\.rateLimit) + [defaultRateLimit].compactMap({ $0 }) where rateLimits[name] == nil {
            throw RouteTableError.unknownRateLimit(name)
        }
        for policy in rateLimits.values where policy.limit < 1 || policy.windowSeconds < 1 {
            throw RouteTableError.invalidRateLimit(policy.name)
        }
    }

    /// An upstream address the gateway can call: `http` with a host, and nothing after the port (no path, query,
    /// fragment or credentials). The services are reached on the private network, as in every deployment under
    /// deploy/; TLS ends in front of the gateway (docs/DECISIONS.md).
    static func isUpstreamBase(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "http" && url.host?.isEmpty == false && (url.path.isEmpty || url.path == "/") && url.query == nil
            && url.fragment == nil && url.user == nil
    }

    /// The longest-prefix route for `path`, if any.
    /// Compared as UTF-8 bytes (a route's prefix is ASCII), not as characters.
    public func route(for path: Substring) -> Route? {
        let path = path.utf8
        return routes.first { route in
            let prefix = route.prefix.utf8
            guard path.starts(with: prefix) else { return false }
            if path.count == prefix.count || prefix.last == UInt8(ascii: "/") { return true }
            return path[path.index(path.startIndex, offsetBy: prefix.count)] == UInt8(ascii: "/")
        }
    }
}

/// A route table that cannot serve.
public enum RouteTableError: Error, CustomStringConvertible {
    case unknownUpstream(route: String, upstream: String)
    case unknownRateLimit(String)
    case invalidRateLimit(String)
    case reservedUpstream(String)
    case noAddress(String)
    case invalidAddress(upstream: String, address: String)
    case repeatedAddress(String)

    public var description: String {
        switch self {
        case .unknownUpstream(let route, let upstream): "route \(route) names upstream \(upstream), which has no address"
        case .unknownRateLimit(let name): "rate limit \(name) is used but not defined in rateLimits"
        case .invalidRateLimit(let name): "rate limit \(name) needs a limit and windowSeconds of at least 1"
        case .reservedUpstream(let name): "upstream \(name) is the gateway itself and may not have an address"
        case .noAddress(let name): "upstream \(name) has an empty list of addresses"
        case .invalidAddress(let name, let address):
            "upstream \(name) has the address \(address), which is not an http://host:port URL (no path, query or https)"
        case .repeatedAddress(let name): "upstream \(name) names the same address twice"
        }
    }
}
