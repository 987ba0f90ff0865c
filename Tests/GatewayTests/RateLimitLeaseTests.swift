import Logging
import MetricsTestKit
import Testing

@testable import Gateway

@Suite("Rate-limit leases taken from a shared store")
struct RateLimitLeaseTests {
    let start = ContinuousClock.now

    func grant(_ granted: Int, used: Int, secondsLeft: Double = 60) -> RateLimitGrant {
        RateLimitGrant(granted: granted, used: used, secondsLeft: secondsLeft)
    }

    @Test("a lease admits what the store granted, then asks the store again while it has budget, and refuses once it had none")
    func spending() {
        var lease = RateLimitLease(grant(5, used: 5), limit: 100, askedAt: start)
        let admitted = (0..<5).map { _ in lease.spend(now: start) }
        #expect(admitted.allSatisfy { $0?.allowed == true })
        #expect(admitted.map { $0?.remaining } == [99, 98, 97, 96, 95], "what this gateway holds plus what no gateway holds yet")
        #expect(lease.spend(now: start) == nil, "spent, but the store may have more: ask it")
        var last = RateLimitLease(grant(2, used: 100), limit: 100, askedAt: start)
        #expect(last.spend(now: start)?.allowed == true)
        #expect(last.spend(now: start)?.allowed == true)
        #expect(last.spend(now: start) == RateLimiter.Decision(allowed: false, remaining: 0, resetSeconds: 60))
    }

    @Test("its window ends no later than the store's: the store's time left counts from when the lease was asked for")
    func conservativeWindow() {
        var lease = RateLimitLease(grant(10, used: 10, secondsLeft: 10.5), limit: 100, askedAt: start)
        #expect(lease.spend(now: start + .milliseconds(10_400))?.resetSeconds == 1)
        #expect(lease.spend(now: start + .milliseconds(10_500)) == nil, "the window closed: a new one is opened in the store")
    }

    @Test("a later grant of the same window adds up; one answered after the window closed starts a new lease")
    func adding() {
        var lease = RateLimitLease(grant(5, used: 50), limit: 100, askedAt: start)
        lease.add(grant(5, used: 70, secondsLeft: 59), limit: 100, askedAt: start + .seconds(2), now: start + .seconds(2))
        #expect(lease.available == 10)
        #expect(lease.unleased == 30)
        #expect(lease.closesAt == start + .seconds(60), "the earlier, shorter estimate of the close is kept")
        lease.add(grant(5, used: 5), limit: 100, askedAt: start + .seconds(61), now: start + .seconds(61))
        #expect(lease.available == 5)
        #expect(lease.unleased == 95)
        #expect(lease.closesAt == start + .seconds(121))
    }

    @Test("a refill is asked for once, when the lease is down to half and the store may have more")
    func refill() {
        var lease = RateLimitLease(grant(10, used: 10), limit: 100, askedAt: start)
        var asks: [Bool] = []
        for _ in 0..<10 {
            _ = lease.spend(now: start)
            asks.append(lease.startsRefill(lowWater: 5))
        }
        #expect(asks == [false, false, false, false, true, false, false, false, false, false])
        var exhausted = RateLimitLease(grant(10, used: 100), limit: 100, askedAt: start)
        _ = exhausted.spend(now: start)
        let asked = exhausted.startsRefill(lowWater: 10)
        #expect(!asked, "nothing left in the store this window")
    }

    @Test("two gateways spending leases of one store never admit more than the limit between them")
    func twoGateways() async {
        let store = FakeRateLimitStore()
        let gateways = [limiter(store: store), limiter(store: store)]
        let policy = RateLimitPolicy(name: "user", limit: 100, windowSeconds: 3600, per: .user)
        #expect(gateways[0].leaseSize(of: policy) == 5)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for request in 0..<400 {
                group.addTask { Self.isAdmitted(await gateways[request % 2].decide(policy, client: "user:1", now: { .now })) }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted <= 100)
        #expect(admitted >= 100 - 2 * 2 * 5, "each gateway holds less than two leases unspent")
    }

    @Test("with the store down a fail-closed policy is unavailable and the others count in this gateway, each counted")
    func storeDown() async throws {
        let store = FakeRateLimitStore()
        let metrics = TestMetrics()
        let gateway = limiter(store: store, metrics: metrics)
        store.isDown = true
        let auth = RateLimitPolicy(name: "auth", limit: 5, windowSeconds: 900, per: .ip, failClosed: true)
        let user = RateLimitPolicy(name: "user", limit: 3, windowSeconds: 3600, per: .user)
        #expect(await gateway.decide(auth, client: "ip:1", now: { .now }) == .unavailable)
        #expect(!gateway.status.isUp)
        #expect(gateway.decideNow(auth, client: "ip:1", now: .now) == .unavailable, "known down: refused without waiting")
        let local = (0..<4).map { _ in Self.isAdmitted(gateway.decideNow(user, client: "user:1", now: .now)) }
        #expect(local == [true, true, true, false], "this gateway's own limit")
        #expect(try metrics.expectCounter("gateway_rate_limit_fallback_total", [("policy", "auth")]).totalValue == 2)
        #expect(try metrics.expectCounter("gateway_rate_limit_fallback_total", [("policy", "user")]).totalValue == 4)
        #expect(try metrics.expectCounter("gateway_rate_limit_store_failures_total").totalValue == 1)
    }

    static func isAdmitted(_ verdict: SharedRateLimiter.Verdict) -> Bool {
        if case .decided(let decision) = verdict { decision.allowed } else { false }
    }

    func limiter(store: FakeRateLimitStore, metrics: TestMetrics = TestMetrics()) -> SharedRateLimiter {
        SharedRateLimiter(
            store: store, leasePercent: 5, status: RateLimitStoreStatus(isUp: true, metrics: metrics, logger: Logger(label: "test")),
            policies: ["user", "auth"], metrics: metrics)
    }
}
