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

    enum CodingKeys: String, CodingKey { case limit, windowSeconds, per }

    init(name: String, limit: Int, windowSeconds: Int, per: Key) {
        self.name = name
        self.limit = limit
        self.windowSeconds = windowSeconds
        self.per = per
    }

    /// The `RateLimit-Policy` header value (draft-ietf-httpapi-ratelimit-headers): `"name";q=limit;w=window`.
    var policyHeader: String { "\"\(name)\";q=\(limit);w=\(windowSeconds)" }
}
