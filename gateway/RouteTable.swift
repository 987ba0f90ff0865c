import Foundation

/// Which upstream serves which path prefix, and whether the route needs a signed-in user.
/// Loaded from a JSON file (`GATEWAY_ROUTES_FILE`); upstream addresses may be overridden per environment.
public struct RouteTable: Sendable, Decodable, Equatable {
    /// One routing rule.
    public struct Route: Sendable, Decodable, Equatable {
        /// Path prefix matched on whole segments: `/api/meals` matches `/api/meals/1`, not `/api/mealsx`.
        public var prefix: String
        /// Key into `upstreams`.
        public var upstream: String
        /// Public routes pass without a token (registration, login, shared links, health).
        public var isPublic: Bool

        enum CodingKeys: String, CodingKey {
            case prefix, upstream
            case isPublic = "public"
        }
    }

    public var upstreams: [String: URL]
    public var routes: [Route]

    public init(upstreams: [String: URL], routes: [Route]) {
        self.upstreams = upstreams
        self.routes = routes.sorted { $0.prefix.count > $1.prefix.count }
    }

    public init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey { case upstreams, routes }
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            upstreams: try container.decode([String: URL].self, forKey: .upstreams),
            routes: try container.decode([Route].self, forKey: .routes))
    }

    /// Reads the table from a JSON file and checks that every route names a known upstream.
    public static func load(from path: String) throws -> RouteTable {
        let table = try JSONDecoder().decode(RouteTable.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        try table.validate()
        return table
    }

    /// Throws when a route names an upstream that has no address.
    public func validate() throws {
        for route in routes where upstreams[route.upstream] == nil {
            throw RouteTableError.unknownUpstream(route: route.prefix, upstream: route.upstream)
        }
    }

    /// The longest-prefix route for `path`, if any.
    public func route(for path: Substring) -> Route? {
        routes.first { route in
            path.hasPrefix(route.prefix)
                && (path.count == route.prefix.count || route.prefix.hasSuffix("/") || path.dropFirst(route.prefix.count).first == "/")
        }
    }
}

/// A route table that cannot serve.
public enum RouteTableError: Error, CustomStringConvertible {
    case unknownUpstream(route: String, upstream: String)

    public var description: String {
        switch self {
        case .unknownUpstream(let route, let upstream): "route \(route) names upstream \(upstream), which has no address"
        }
    }
}
