/// A lease to refill in the background (`RateLimitStoreService`): the policy and the client it counts.
struct RateLimitRefill: Sendable {
    var policy: RateLimitPolicy
    /// The client's key in the store (`ip:...` or `user:...`).
    var client: String
}
