import Configuration
import Foundation
import ServiceDefaults
import Testing

@testable import Gateway

@Suite("Gateway route table")
struct RouteTableTests {
    let table = RouteTable(
        upstreams: ["auth": [URL(string: "http://127.0.0.1:1")!], "meals": [URL(string: "http://127.0.0.1:2")!]],
        routes: [
            .init(prefix: "/api/auth", upstream: "auth", isPublic: false),
            .init(prefix: "/api/auth/login", upstream: "auth", isPublic: true),
            .init(prefix: "/api/meals", upstream: "meals", isPublic: false),
        ])

    @Test("the longest matching prefix wins")
    func longestPrefix() {
        #expect(table.route(for: "/api/auth/login")?.isPublic == true)
        #expect(table.route(for: "/api/auth/me")?.isPublic == false)
    }

    @Test("prefixes match whole path segments only")
    func wholeSegments() {
        #expect(table.route(for: "/api/meals/42")?.upstream == "meals")
        #expect(table.route(for: "/api/meals")?.upstream == "meals")
        #expect(table.route(for: "/api/mealsx") == nil)
        #expect(table.route(for: "/api/auth/loginx")?.isPublic == false)
    }

    @Test("a route naming an unknown upstream is refused at load")
    func unknownUpstream() {
        let broken = RouteTable(upstreams: [:], routes: [.init(prefix: "/api/x", upstream: "nowhere", isPublic: false)])
        #expect(throws: RouteTableError.self) { try broken.validate() }
    }

    @Test("the shipped routes file loads and covers every path the seeds name")
    func shippedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shipped = try RouteTable.load(from: root.appendingPathComponent("deploy/gateway-routes.json").path)
        let expectations: [(String, String, Bool)] = [
            ("/api/auth/register", "auth", true), ("/api/auth/login", "auth", true), ("/api/users/profile", "auth", false),
            ("/api/analyze", "meals", false), ("/api/meals/1/consume", "meals", false), ("/api/metrics/weight", "metrics", false),
            ("/api/trends", "trends", false), ("/api/user/stats", "trends", false), ("/api/share/meal/1", "sharing", false),
            ("/api/share/abc", "sharing", true), ("/shared/abc", "sharing", true), ("/shared/abc/card.svg", "sharing", true),
            ("/api/sync/changes", RouteTable.gatewayUpstream, false), ("/api/sync/conflicts", RouteTable.gatewayUpstream, false),
            ("/api/sync/import", RouteTable.gatewayUpstream, false), ("/api/sync/profile/changes", "auth", false),
            ("/api/sync/meals/import", "meals", false), ("/api/sync/metrics/changes", "metrics", false),
            ("/api/export", RouteTable.gatewayUpstream, false), ("/api/export/account", "auth", false), ("/api/export/meals", "meals", false),
            ("/api/export/metrics", "metrics", false), ("/api/export/trends", "trends", false), ("/api/export/sharing", "sharing", false),
        ]
        for (path, upstream, isPublic) in expectations {
            let route = try #require(shipped.route(for: Substring(path)), "no route for \(path)")
            #expect(route.upstream == upstream, "\(path)")
            #expect(route.isPublic == isPublic, "\(path)")
        }
        for path in ["/api/sync/changes", "/api/sync/conflicts", "/api/sync/import"] {
            let route = try #require(shipped.route(for: Substring(path)))
            #expect(shipped.rateLimitPolicy(for: route)?.name == "sync", "\(path)")
        }
        // The export and its parts share one small budget: each download reads everything the user has.
        for path in ["/api/export", "/api/export/account", "/api/export/meals", "/api/export/sharing"] {
            let route = try #require(shipped.route(for: Substring(path)))
            #expect(shipped.rateLimitPolicy(for: route) == RateLimitPolicy(name: "export", limit: 10, windowSeconds: 3600, per: .user), "\(path)")
        }
    }

    @Test("routes the gateway answers itself need no address, and the name gateway cannot be given one")
    func gatewayUpstream() throws {
        let own = RouteTable(upstreams: [:], routes: [.init(prefix: "/api/sync/changes", upstream: RouteTable.gatewayUpstream, isPublic: false)])
        try own.validate()
        let addressed = RouteTable(
            upstreams: [RouteTable.gatewayUpstream: [URL(string: "http://127.0.0.1:1")!]],
            routes: [.init(prefix: "/api/sync/changes", upstream: RouteTable.gatewayUpstream, isPublic: false)])
        #expect(throws: RouteTableError.self) { try addressed.validate() }
    }

    @Test("an upstream has one address or an array of them; an empty list, a non-http address, one with a path or a repeated one is refused")
    func upstreamAddresses() throws {
        func table(_ upstreams: String) throws -> RouteTable {
            let json = #"{"upstreams": \#(upstreams), "routes": [{"prefix": "/api/meals", "upstream": "meals", "public": false}]}"#
            let table = try JSONDecoder().decode(RouteTable.self, from: Data(json.utf8))
            try table.validate()
            return table
        }
        #expect(try table(#"{"meals": "http://10.0.0.1:8082"}"#).upstreams["meals"]?.map(\.absoluteString) == ["http://10.0.0.1:8082"])
        let replicas = try table(#"{"meals": ["http://10.0.0.1:8082", "http://10.0.0.2:8082"]}"#)
        #expect(replicas.upstreams["meals"]?.map(\.absoluteString) == ["http://10.0.0.1:8082", "http://10.0.0.2:8082"])
        let broken = [
            #"{"meals": []}"#, #"{"meals": ["ftp://10.0.0.1"]}"#, #"{"meals": ["https://10.0.0.1:8082"]}"#,
            #"{"meals": ["http://10.0.0.1:8082/meals"]}"#, #"{"meals": ["http://a:1", "http://a:1"]}"#, #"{"meals": 8082}"#,
        ]
        for broken in broken {
            #expect(throws: (any Error).self, "\(broken)") { try table(broken) }
        }
    }

    @Test("UPSTREAM_<NAME>_URLS sets several addresses and UPSTREAM_<NAME>_URL one; both at once or a bad address is refused by name")
    func environmentOverrides() throws {
        let shipped = RouteTable(
            upstreams: ["meals": [URL(string: "http://127.0.0.1:8082")!]], routes: [.init(prefix: "/api/meals", upstream: "meals", isPublic: false)])
        func overridden(_ values: [AbsoluteConfigKey: ConfigValue]) throws -> [String]? {
            var table = shipped
            try table.overrideUpstreams(from: ConfigReader(provider: InMemoryProvider(values: values)))
            return table.upstreams["meals"]?.map(\.absoluteString)
        }
        #expect(
            try overridden(["upstream.meals.urls": "http://10.0.0.1:8082, http://10.0.0.2:8082"]) == ["http://10.0.0.1:8082", "http://10.0.0.2:8082"])
        #expect(try overridden(["upstream.meals.url": "http://10.0.0.9:8082"]) == ["http://10.0.0.9:8082"])
        #expect(try overridden([:]) == ["http://127.0.0.1:8082"])
        let both = #expect(throws: ConfigurationError.self) {
            try overridden(["upstream.meals.urls": "http://10.0.0.1:8082", "upstream.meals.url": "http://10.0.0.2:8082"])
        }
        #expect(both.map { "\($0)" }?.contains("UPSTREAM_MEALS_URLS") == true)
        let bad = #expect(throws: ConfigurationError.self) { try overridden(["upstream.meals.urls": "http://10.0.0.1:8082,meals-2:8082"]) }
        #expect(bad.map { "\($0)" }?.contains("meals-2:8082") == true)
    }
}
