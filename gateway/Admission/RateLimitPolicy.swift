/// One rate-limit rule from the routes file: at most `limit` requests per `windowSeconds` per client IP or per user.
struct RateLimitPolicy: Sendable, Decodable, Equatable {
    /// Whose requests are counted together.
    enum Key: String, Sendable, Decodable {
        /// The client's address (see `ClientAddressResolver`).
        case ip
        /// The signed-in user; falls back to the address on public routes.
        case user
    }

    /// The policy's name, as given in the `rateLimits` object; shown in the `RateLimit*` headers.
    var name: String = ""
    var limit: Int
    var windowSeconds: Int
    var per: Key
    /// Whether, with a shared store (`SharedRateLimiter`), the policy is counted in the store on every request and
    /// refuses with 503 while the store is down, rather than falling back to this gateway's own count
    /// (`"failClosed": true` in the routes file; the `auth` policy, which guards passwords).
    var failClosed = false

    enum CodingKeys: String, CodingKey { case limit, windowSeconds, per, failClosed }

    init(name: String, limit: Int, windowSeconds: Int, per: Key, failClosed: Bool = false) {
        self.name = name
        self.limit = limit
        self.windowSeconds = windowSeconds
        self.per = per
        self.failClosed = failClosed
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.limit = try container.decode(Int.self, forKey: .limit)
        self.windowSeconds = try container.decode(Int.self, forKey: .windowSeconds)
        self.per = try container.decode(Key.self, forKey: .per)
        self.failClosed = try container.decodeIfPresent(Bool.self, forKey: .failClosed) ?? false
    }

    /// The `RateLimit-Policy` header value (draft-ietf-httpapi-ratelimit-headers): `"name";q=limit;w=window`.
    var policyHeader: String { "\"\(name)\";q=\(limit);w=\(windowSeconds)" }
}
