/// Budget of one window (a policy and a client) that the store granted this gateway, spent without asking the store
/// again. Whatever it holds was granted by the store, so spending it never passes the limit across gateways; what
/// it holds unspent when the window closes is the undershoot (docs/GATEWAY.md, "Rate limits across gateways").
struct RateLimitLease: Sendable, Equatable {
    /// Requests this gateway may still admit from its grants.
    var available: Int
    /// Requests of the window that no gateway had been granted at the last grant (the limit less the store's `used`).
    var unleased: Int
    /// When the window closes by this gateway's clock: the store's time left counted from when the grant was asked
    /// for, so never later than the store's own close (a new window's first requests are always counted there).
    var closesAt: ContinuousClock.Instant
    /// Whether a lease's worth was asked for and has not been answered yet (at most one at a time).
    var refilling = false

    /// The lease made of `grant`, asked for at `askedAt`, of a policy allowing `limit` per window.
    init(_ grant: RateLimitGrant, limit: Int, askedAt: ContinuousClock.Instant) {
        self.available = grant.granted
        self.unleased = max(0, limit - grant.used)
        self.closesAt = askedAt + .seconds(grant.secondsLeft)
    }

    /// Adds a later grant. One answered after this lease's window closed belongs to a new window and replaces it; any
    /// other is of the same window, since the store cannot have closed it before this lease's conservative end.
    mutating func add(_ grant: RateLimitGrant, limit: Int, askedAt: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        var later = RateLimitLease(grant, limit: limit, askedAt: askedAt)
        guard now < closesAt else {
            later.refilling = refilling
            self = later
            return
        }
        available += later.available
        unleased = later.unleased
        closesAt = min(closesAt, later.closesAt)
    }

    /// Spends one request at `now`: admitted while budget is left, refused once the store had nothing left to grant
    /// in this window, nil when the store must be asked (the window closed, or this lease is spent but the store
    /// may still have budget).
    mutating func spend(now: ContinuousClock.Instant) -> RateLimiter.Decision? {
        guard now < closesAt else { return nil }
        let reset = RateLimiter.seconds(from: now, to: closesAt)
        if available > 0 {
            available -= 1
            return RateLimiter.Decision(allowed: true, remaining: available + unleased, resetSeconds: reset)
        }
        return unleased == 0 ? RateLimiter.Decision(allowed: false, remaining: 0, resetSeconds: reset) : nil
    }

    /// Whether to ask the store for another lease now, in the background: once no more than `lowWater` requests are
    /// left and the store may have more, unless a refill is already under way (marked as under way when true).
    mutating func startsRefill(lowWater: Int) -> Bool {
        guard !refilling, unleased > 0, available <= lowWater else { return false }
        refilling = true
        return true
    }
}
