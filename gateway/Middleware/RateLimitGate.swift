import AccessTokens
import HTTPTypes
import Metrics
import ServiceDefaults

/// Applies the matched route's rate-limit policy, counted per policy and per client IP or user: routes that name the
/// same policy share its counter (the seeds' "5 per 15 minutes on the auth endpoints"). Shared by
/// `RateLimitMiddleware` and the pass-through (`PassThroughAdmission`), so both count into the same windows.
/// Every limited answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers); a refusal
/// is 429 `rate_limited` with `Retry-After`, counted in `gateway_rate_limit_refusals_total` by policy.
struct RateLimitGate: Sendable {
    /// What a request may do under its route's policy.
    enum Outcome {
        /// Go on; the answer carries these headers (none when the route has no policy).
        case admitted(HTTPFields)
        /// Refused: answer this error.
        case refused(APIError)
    }

    let routes: RouteTable
    let limiter: RateLimiter
    let now: @Sendable () -> ContinuousClock.Instant
    /// One refusal counter per policy, made at start so that every policy's series exists from zero.
    private let refusals: [String: Counter]

    init(
        routes: RouteTable, limiter: RateLimiter, now: @escaping @Sendable () -> ContinuousClock.Instant,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.routes = routes
        self.limiter = limiter
        self.now = now
        self.refusals = Dictionary(
            uniqueKeysWithValues: routes.rateLimits.keys.map { name in
                (name, Counter(label: "gateway_rate_limit_refusals_total", dimensions: [("policy", name)], factory: metrics))
            })
    }

    /// Counts one request of `caller` (nil on a public route without a valid token) from `clientAddress` on `route`.
    func admit(_ route: RouteTable.Route, caller: VerifiedAccessToken?, clientAddress: String) -> Outcome {
        guard let policy = routes.rateLimitPolicy(for: route) else { return .admitted([:]) }
        let who: String
        if policy.per == .user, let caller { who = "user:\(caller.userId)" } else { who = "ip:\(clientAddress)" }
        let decision = limiter.admit(key: "\(policy.name)|\(who)", policy: policy, now: now())
        var headers: HTTPFields = [
            .rateLimitPolicy: policy.policyHeader,
            .rateLimit: "\"\(policy.name)\";r=\(decision.remaining);t=\(decision.resetSeconds)",
        ]
        guard decision.allowed else {
            refusals[policy.name]?.increment()
            headers[.retryAfter] = String(decision.resetSeconds)
            return .refused(
                APIError(
                    .tooManyRequests, code: "rate_limited",
                    message: "Too many requests; try again in \(decision.resetSeconds) seconds.",
                    details: ["policy": policy.name, "limit": String(policy.limit), "windowSeconds": String(policy.windowSeconds)],
                    headers: headers))
        }
        return .admitted(headers)
    }
}
