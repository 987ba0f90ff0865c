/// What the store answered one request for budget: how much it granted now, how much of the window's limit is
/// granted in all (across every gateway), and how long the window has left.
struct RateLimitGrant: Sendable, Equatable {
    /// Requests granted by this call: the amount asked for, or what was left of the limit (0 when none).
    var granted: Int
    /// Requests granted in this window so far, this call included; never above the limit.
    var used: Int
    /// Seconds until the window closes, by the store's clock.
    var secondsLeft: Double
}
