import Logging
import MetricsTestKit
import PostgresSupport
import ServiceLifecycle
import Testing

@testable import Gateway

/// Several gateways' rate limiters (`SharedRateLimiter`, each with its own pool and background service, as separate
/// gateway processes would have) on the real PostgreSQL, schema `itest_gateway`: shared limits exact under races.
@Suite("Shared rate limits across gateways on the real database", .enabled(if: TestEnvironment.isAvailable), .serialized)
struct SharedRateLimitTests {
    let auth = RateLimitPolicy(name: "auth", limit: 5, windowSeconds: 900, per: .ip, failClosed: true)
    let user = RateLimitPolicy(name: "user", limit: 100, windowSeconds: 3600, per: .user)

    /// Runs `body` with `count` gateways' limiters on an emptied `itest_gateway`, once each has applied the migrations.
    /// The store's statements may take `storeTimeout` (10 s unless given; nil: the shipped 0.5 s) before a limiter counts
    /// it down: the races check what the store decides, and on a loaded machine (the test command's lanes beside them)
    /// a statement queued behind 300 racing ones once passed 0.5 s, and the limiters rightly counted alone.
    func withGateways(
        _ count: Int, metrics: TestMetrics = TestMetrics(), storeTimeout: Duration? = .seconds(10),
        _ body: @Sendable ([SharedRateLimiter]) async throws -> Void
    ) async throws {
        let postgres = try TestEnvironment.postgresSettings(schema: "itest_gateway")
        try await withPostgres(postgres) { try await emptySchema($0) }
        var settings = RateLimitStoreSettings(postgres: postgres)
        settings.retryInterval = .milliseconds(200)
        if let storeTimeout { settings.timeout = storeTimeout }
        let gateways = try (0..<count).map { _ in
            try SharedRateLimiter.postgres(
                settings: settings, policies: ["auth", "user"], clock: .system, metrics: metrics, logger: TestEnvironment.logger)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in gateways.flatMap(\.services) { group.addTask { try await service.run() } }
            defer { group.cancelAll() }
            let ready = try await TestEnvironment.eventually(timeout: .seconds(20)) { gateways.allSatisfy { $0.limiter.status.isUp } }
            try #require(ready, "the gateways never applied their migrations")
            try await body(gateways.map(\.limiter))
        }
    }

    /// How many of `requests` racing requests of `client` under `policy`, spread over `gateways` in turn, were
    /// admitted.
    func race(_ requests: Int, _ policy: RateLimitPolicy, client: String, over gateways: [SharedRateLimiter]) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for request in 0..<requests {
                group.addTask { Self.isAdmitted(await gateways[request % gateways.count].decide(policy, client: client, now: { .now })) }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    static func isAdmitted(_ verdict: SharedRateLimiter.Verdict) -> Bool {
        if case .decided(let decision) = verdict { decision.allowed } else { false }
    }

    @Test("50 racing sign-in attempts from one address over three gateways: exactly the auth limit of 5 is admitted")
    func authExactUnderRaces() async throws {
        try await withGateways(3) { gateways in
            #expect(await race(50, auth, client: "ip:203.0.113.7", over: gateways) == 5)
            let next = await gateways[1].decide(auth, client: "ip:203.0.113.7", now: { .now })
            guard case .decided(let decision) = next else { Issue.record("no decision: \(next)"); return }
            #expect(!decision.allowed && decision.remaining == 0 && decision.resetSeconds > 890, "one window of 900 s, shared")
            #expect(await race(5, auth, client: "ip:203.0.113.8", over: gateways) == 5, "another address has its own budget")
        }
    }

    @Test("a leased policy over two gateways never admits more than its limit, and leaves at most two leases each unused")
    func leasedWithinBound() async throws {
        try await withGateways(2) { gateways in
            let admitted = await race(300, user, client: "user:7", over: gateways)
            #expect(admitted <= 100)
            #expect(admitted >= 100 - 2 * 2 * gateways[0].leaseSize(of: user))
        }
    }

    @Test("a closed window opens anew with the whole limit, and closed windows are deleted")
    func windowsCloseAndAreDeleted() async throws {
        try await withGateways(1) { gateways in
            let brief = RateLimitPolicy(name: "auth", limit: 2, windowSeconds: 1, per: .ip, failClosed: true)
            let store = gateways[0].store
            #expect(try await store.take(5, of: brief, key: "ip:1").granted == 2)
            #expect(try await store.take(1, of: brief, key: "ip:1").granted == 0)
            // Asked until the window's second has passed on the database's clock: the first grant is a new window's.
            var reopened: RateLimitGrant?
            let granted = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                let grant = try await store.take(1, of: brief, key: "ip:1")
                reopened = grant
                return grant.granted > 0
            }
            #expect(granted && reopened?.granted == 1 && reopened?.used == 1, "a new window")
            _ = try await store.take(1, of: brief, key: "ip:2")
            // Deleted as each window closes, until both are gone.
            var deleted = 0
            let bothClosed = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                deleted += try await store.deleteClosedWindows()
                return deleted >= 2
            }
            #expect(bothClosed && deleted == 2)
            #expect(try await store.deleteClosedWindows() == 0)
        }
    }

    @Test("with the database stopped auth answers 503 and user counts per gateway; when it returns, limits are shared again")
    func storeOutageAndRecovery() async throws {
        let metrics = TestMetrics()
        try await withGateways(2, metrics: metrics, storeTimeout: nil) { gateways in
            try TestEnvironment.infra("stop-postgres")
            #expect(await gateways[0].decide(auth, client: "ip:198.51.100.1", now: { .now }) == .unavailable)
            #expect(!gateways[0].status.isUp)
            #expect(await race(120, user, client: "user:9", over: [gateways[0]]) == 100, "this gateway's own limit")
            try TestEnvironment.infra("start-postgres")
            let back = try await TestEnvironment.eventually(timeout: .seconds(20)) { gateways.allSatisfy { $0.status.isUp } }
            try #require(back, "the gateways never found the database again")
            #expect(await race(20, auth, client: "ip:198.51.100.1", over: gateways) == 5, "shared and exact again")
        }
        #expect(try metrics.expectCounter("gateway_rate_limit_fallback_total", [("policy", "auth")]).totalValue >= 1)
        #expect(try metrics.expectCounter("gateway_rate_limit_fallback_total", [("policy", "user")]).totalValue >= 120)
        #expect(try metrics.expectCounter("gateway_rate_limit_store_failures_total").totalValue >= 1)
    }
}
