import Synchronization

/// This gateway's leases (`RateLimitLease`), by policy and client, behind one lock. Holds at most `maxKeys`; when
/// full it drops leases whose window closed, and if every one is still open a new grant is spent once and not kept
/// (its rest goes unused: undershoot, never overshoot).
final class RateLimitLeases: Sendable {
    private let leases = Mutex<[String: RateLimitLease]>([:])
    let maxKeys: Int

    init(maxKeys: Int = 200_000) {
        self.maxKeys = maxKeys
    }

    /// Spends one request of `key`'s lease at `now`, without waiting: the decision, or nil when the store must be
    /// asked; `refill` says that a background refill should be asked for now (it is marked as under way).
    func spend(key: String, lowWater: Int, now: ContinuousClock.Instant) -> (decision: RateLimiter.Decision?, refill: Bool) {
        leases.withLock { leases in
            guard var lease = leases[key] else { return (nil, false) }
            let decision = lease.spend(now: now)
            let refill = decision != nil && lease.startsRefill(lowWater: lowWater)
            leases[key] = lease
            return (decision, refill)
        }
    }

    /// Marks a lease's worth for `key` as asked for, unless one already is; true when this call marked it (the caller
    /// then asks the store for a whole lease, and ends the ask with `endsAsk` or `endAsk`).
    func startAsk(key: String, now: ContinuousClock.Instant) -> Bool {
        update(key: key, now: now) { lease in
            defer { lease.refilling = true }
            return !lease.refilling
        }
    }

    /// Adds `grant` (asked for at `askedAt`) to `key`'s lease and spends one request of it for the request that asked.
    func addAndSpend(
        _ grant: RateLimitGrant, key: String, limit: Int, askedAt: ContinuousClock.Instant, now: ContinuousClock.Instant, endsAsk: Bool
    ) -> RateLimiter.Decision {
        update(key: key, now: now) { lease in
            lease.add(grant, limit: limit, askedAt: askedAt, now: now)
            if endsAsk { lease.refilling = false }
            return Self.spendGranted(&lease, now: now)
        }
    }

    /// Adds the grant of a background refill (asked for at `askedAt`) to `key`'s lease and ends the ask.
    func addRefill(_ grant: RateLimitGrant, key: String, limit: Int, askedAt: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        update(key: key, now: now) { lease in
            lease.add(grant, limit: limit, askedAt: askedAt, now: now)
            lease.refilling = false
        }
    }

    /// Ends `key`'s ask without a grant (the store failed, or the refill queue was full).
    func endAsk(key: String) {
        leases.withLock { leases in leases[key]?.refilling = false }
    }

    /// Leases currently held.
    var keyCount: Int { leases.withLock { $0.count } }

    /// Changes `key`'s lease (an empty, closed one when there is none) and keeps it, room permitting.
    private func update<Result>(key: String, now: ContinuousClock.Instant, _ change: (inout RateLimitLease) -> Result) -> Result {
        leases.withLock { leases in
            var lease = leases[key] ?? RateLimitLease(RateLimitGrant(granted: 0, used: 0, secondsLeft: 0), limit: 0, askedAt: now)
            let result = change(&lease)
            if leases[key] == nil, leases.count >= maxKeys {
                leases = leases.filter { $0.value.closesAt > now }
                guard leases.count < maxKeys else { return result }
            }
            leases[key] = lease
            return result
        }
    }

    /// The request that asked the store is answered from what it got: when the store granted nothing it is refused,
    /// even if the lease's `unleased` (as the store saw it) says more may come.
    private static func spendGranted(_ lease: inout RateLimitLease, now: ContinuousClock.Instant) -> RateLimiter.Decision {
        if let decision = lease.spend(now: now), decision.allowed { return decision }
        return RateLimiter.Decision(allowed: false, remaining: 0, resetSeconds: RateLimiter.seconds(from: now, to: lease.closesAt))
    }
}
