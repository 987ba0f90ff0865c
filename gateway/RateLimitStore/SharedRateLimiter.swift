import Metrics

/// Rate limits counted in a store that every gateway shares (docs/GATEWAY.md, "Rate limits across gateways"). A policy marked
/// `failClosed` (`auth`), or whose lease would be a single request, is counted in the store on every request: exact
/// across gateways, so only the router, which can wait, decides it. The others spend leases (`RateLimitLeases`) taken
/// from the store in batches of `leaseSize` and refilled in the background, so the pass-through decides them without
/// waiting. While the store is down, fail-closed policies refuse with 503 and the others count in `fallback`, this
/// gateway's own memory, each such request counted in `gateway_rate_limit_fallback_total` by policy.
final class SharedRateLimiter: Sendable {
    /// What one request may do.
    enum Verdict: Equatable {
        case decided(RateLimiter.Decision)
        /// Only the store can say: ask it (`decide`), which the pass-through cannot.
        case askStore
        /// The store is down and the policy fails closed: 503.
        case unavailable
    }

    let store: any RateLimitStore
    /// Share of a policy's limit one lease takes, in percent (`RateLimitStoreSettings.leasePercent`).
    let leasePercent: Int
    let status: RateLimitStoreStatus
    let leases: RateLimitLeases
    let fallback: RateLimiter
    private let fallbacks: [String: Counter]
    private let refills: AsyncStream<RateLimitRefill>.Continuation
    /// What `RateLimitStoreService` refills, in order; bounded, new requests are dropped when it is full.
    let refillRequests: AsyncStream<RateLimitRefill>

    /// A limiter over `store` that leases `leasePercent` of a limit at a time, for the named `policies`, reporting the
    /// store's health in `status` and counting in `fallback` while the store is down.
    init(
        store: any RateLimitStore, leasePercent: Int, status: RateLimitStoreStatus, policies: [String],
        leases: RateLimitLeases = RateLimitLeases(), fallback: RateLimiter = RateLimiter(), metrics: any MetricsFactory
    ) {
        self.store = store
        self.leasePercent = leasePercent
        self.status = status
        self.leases = leases
        self.fallback = fallback
        self.fallbacks = Dictionary(
            uniqueKeysWithValues: policies.map { name in
                (name, Counter(label: "gateway_rate_limit_fallback_total", dimensions: [("policy", name)], factory: metrics))
            })
        (refillRequests, refills) = AsyncStream.makeStream(of: RateLimitRefill.self, bufferingPolicy: .bufferingOldest(1024))
    }

    /// Requests one lease of `policy` takes from the store: `leasePercent` of its limit, at least 1; 1 for a
    /// fail-closed policy, which is counted exactly.
    func leaseSize(of policy: RateLimitPolicy) -> Int {
        policy.failClosed ? 1 : max(1, policy.limit * leasePercent / 100)
    }

    /// The verdict for one request of `client` under `policy` at `now`, without waiting for the store.
    func decideNow(_ policy: RateLimitPolicy, client: String, now: ContinuousClock.Instant) -> Verdict {
        guard status.isUp else { return withoutStore(policy, client: client, now: now) }
        let size = leaseSize(of: policy)
        guard size > 1 else { return .askStore }
        let key = Self.key(policy, client)
        let (decision, refill) = leases.spend(key: key, lowWater: size / 2, now: now)
        if refill, case .dropped = refills.yield(RateLimitRefill(policy: policy, client: client)) { leases.endAsk(key: key) }
        return decision.map(Verdict.decided) ?? .askStore
    }

    /// The verdict for one request, asking the store when the lease cannot say (never `askStore`).
    func decide(_ policy: RateLimitPolicy, client: String, now: @Sendable () -> ContinuousClock.Instant) async -> Verdict {
        let verdict = decideNow(policy, client: client, now: now())
        guard verdict == .askStore else { return verdict }
        let size = leaseSize(of: policy)
        let key = Self.key(policy, client)
        // While another lease's worth is being asked for this request takes only its own share, so a gateway holds
        // less than two leases' worth of a window unspent (docs/GATEWAY.md, "Rate limits across gateways").
        let asksLease = size > 1 && leases.startAsk(key: key, now: now())
        let askedAt = now()
        let grant: RateLimitGrant
        do {
            grant = try await store.take(asksLease ? size : 1, of: policy, key: client)
            status.succeeded()
        } catch {
            status.failed(error)
            if asksLease { leases.endAsk(key: key) }
            return withoutStore(policy, client: client, now: now())
        }
        guard size > 1 else {
            return .decided(
                RateLimiter.Decision(
                    allowed: grant.granted > 0, remaining: max(0, policy.limit - grant.used),
                    resetSeconds: max(1, Int(grant.secondsLeft.rounded(.up)))))
        }
        return .decided(leases.addAndSpend(grant, key: key, limit: policy.limit, askedAt: askedAt, now: now(), endsAsk: asksLease))
    }

    /// Takes the next lease of a refill request (called by `RateLimitStoreService`).
    func refill(_ request: RateLimitRefill, now: @Sendable () -> ContinuousClock.Instant) async {
        let key = Self.key(request.policy, request.client)
        let askedAt = now()
        do {
            let grant = try await store.take(leaseSize(of: request.policy), of: request.policy, key: request.client)
            status.succeeded()
            leases.addRefill(grant, key: key, limit: request.policy.limit, askedAt: askedAt, now: now())
        } catch {
            status.failed(error)
            leases.endAsk(key: key)
        }
    }

    /// Stops taking refill requests (at shutdown).
    func finishRefills() {
        refills.finish()
    }

    private func withoutStore(_ policy: RateLimitPolicy, client: String, now: ContinuousClock.Instant) -> Verdict {
        fallbacks[policy.name]?.increment()
        guard !policy.failClosed else { return .unavailable }
        return .decided(fallback.admit(key: Self.key(policy, client), policy: policy, now: now))
    }

    private static func key(_ policy: RateLimitPolicy, _ client: String) -> String { "\(policy.name)|\(client)" }
}
