import Foundation
import Testing

@testable import Gateway

@Suite("Rate limiter and client addresses")
struct RateLimiterTests {
    let policy = RateLimitPolicy(name: "auth", limit: 5, windowSeconds: 900, per: .ip)

    @Test("a window admits exactly its limit, then refuses until it closes")
    func fixedWindow() {
        let limiter = RateLimiter()
        let start = ContinuousClock.now
        let decisions = (0..<6).map { _ in limiter.admit(key: "ip:1", policy: policy, now: start) }
        #expect(decisions.prefix(5).allSatisfy { $0.allowed })
        #expect(decisions.map(\.remaining) == [4, 3, 2, 1, 0, 0])
        #expect(decisions[5] == .init(allowed: false, remaining: 0, resetSeconds: 900))
        #expect(limiter.admit(key: "ip:1", policy: policy, now: start + .seconds(600)).resetSeconds == 300)
        #expect(limiter.admit(key: "ip:2", policy: policy, now: start).allowed, "another client has its own window")
        #expect(limiter.admit(key: "ip:1", policy: policy, now: start + .seconds(900)).allowed, "a new window opens")
    }

    @Test("under concurrent requests exactly the limit is admitted")
    func concurrency() async {
        let limiter = RateLimiter()
        let now = ContinuousClock.now
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { limiter.admit(key: "ip:9", policy: policy, now: now).allowed } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 5)
    }

    @Test("the table stays bounded: closed windows are dropped, and when all are open new keys pass uncounted")
    func bounded() {
        let limiter = RateLimiter(maxKeys: 3)
        let start = ContinuousClock.now
        for key in ["a", "b", "c"] { _ = limiter.admit(key: key, policy: policy, now: start) }
        let full = limiter.admit(key: "d", policy: policy, now: start)
        #expect(full.allowed && !full.counted)
        #expect(limiter.keyCount == 3)
        let later = limiter.admit(key: "d", policy: policy, now: start + .seconds(901))
        #expect(later.allowed && later.counted)
        #expect(limiter.keyCount == 1)
    }

    @Test("X-Forwarded-For is believed only from trusted proxies, read from the right")
    func clientAddress() {
        let resolver = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!, IPNetwork("::1")!])
        #expect(resolver.clientAddress(peer: "203.0.113.9", forwardedFor: ["198.51.100.1"]) == "203.0.113.9")
        #expect(resolver.clientAddress(peer: "10.1.2.3", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        #expect(resolver.clientAddress(peer: "10.1.2.3", forwardedFor: ["6.6.6.6, 198.51.100.1, 10.0.0.7"]) == "198.51.100.1")
        #expect(resolver.clientAddress(peer: "::1", forwardedFor: ["2001:db8::5"]) == "2001:db8::5")
        #expect(resolver.clientAddress(peer: "10.1.2.3", forwardedFor: ["garbage"]) == "10.1.2.3")
        #expect(resolver.clientAddress(peer: nil, forwardedFor: ["1.2.3.4"]) == "unknown")
    }

    @Test("CIDR networks parse and match IPv4, IPv6 and IPv4-mapped addresses")
    func networks() {
        let network = IPNetwork("192.168.0.0/16")!
        #expect(network.contains(IPNetwork.addressBytes("192.168.44.1")!))
        #expect(!network.contains(IPNetwork.addressBytes("192.169.0.1")!))
        #expect(network.contains(IPNetwork.addressBytes("::ffff:192.168.1.1")!))
        #expect(IPNetwork("2001:db8::/32")!.contains(IPNetwork.addressBytes("2001:db8:1::1")!))
        #expect(IPNetwork("10.0.0.0/33") == nil)
        #expect(IPNetwork("not-an-ip") == nil)
    }

    @Test("the routes file names only defined, usable policies")
    func routeTableValidation() throws {
        let url = URL(string: "http://127.0.0.1:1")!
        let unknown = RouteTable(upstreams: ["a": [url]], routes: [.init(prefix: "/a", upstream: "a", isPublic: true, rateLimit: "nope")])
        #expect(throws: RouteTableError.self) { try unknown.validate() }
        let zero = RouteTable(
            upstreams: ["a": [url]], routes: [], rateLimits: ["z": RateLimitPolicy(name: "z", limit: 0, windowSeconds: 60, per: .ip)])
        #expect(throws: RouteTableError.self) { try zero.validate() }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shipped = try RouteTable.load(from: root.appendingPathComponent("deploy/gateway-routes.json").path)
        let login = try #require(shipped.route(for: "/api/auth/login"))
        #expect(shipped.rateLimitPolicy(for: login) == RateLimitPolicy(name: "auth", limit: 5, windowSeconds: 900, per: .ip, failClosed: true))
        let meals = try #require(shipped.route(for: "/api/meals/1"))
        #expect(shipped.rateLimitPolicy(for: meals) == RateLimitPolicy(name: "user", limit: 100, windowSeconds: 3600, per: .user))
        // Shared links are opened without a token, so they are limited per client address.
        let publicPolicy = RateLimitPolicy(name: "public", limit: 300, windowSeconds: 60, per: .ip)
        for path in ["/api/share/abc", "/shared/abc", "/shared/abc/card.svg", "/shared/abc/photo"] {
            #expect(shipped.rateLimitPolicy(for: try #require(shipped.route(for: Substring(path)))) == publicPolicy, "\(path)")
        }
    }
}
