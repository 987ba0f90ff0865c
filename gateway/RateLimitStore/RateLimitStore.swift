/// Where the gateways keep the rate-limit windows they share (`PostgresRateLimitStore`; tests pass fakes).
/// Every call either answers or throws; a throw (or a time-out) means the store is down for the caller.
protocol RateLimitStore: Sendable {
    /// Grants up to `amount` requests of `policy`'s window for `key` in one atomic step, opening a new window when
    /// none is open: never more than the limit in all, however many gateways ask at once.
    func take(_ amount: Int, of policy: RateLimitPolicy, key: String) async throws -> RateLimitGrant
    /// Prepares the store (the schema's migrations); called until it succeeds.
    func prepare() async throws
    /// Answers when the store is reachable, throws otherwise.
    func ping() async throws
    /// Deletes windows that have closed; returns how many.
    func deleteClosedWindows() async throws -> Int
}
