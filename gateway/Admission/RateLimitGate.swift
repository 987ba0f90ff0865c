import AccessTokens
import HTTPTypes
import Metrics
import ServiceDefaults

/// Applies the matched route's rate-limit policy, counted per policy and per client IP or user: routes that name the
/// same policy share its counter (the seeds' "5 per 15 minutes on the auth endpoints"). Used by the admission of every
/// request (`PassThroughAdmission`), counting into this gateway's own windows (`limiter`), or with a shared store those of every gateway (`shared`, docs/GATEWAY.md, "Rate limits across gateways").
/// Every limited answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers); a refusal
/// is 429 `rate_limited` with `Retry-After`, counted in `gateway_rate_limit_refusals_total` by policy; a fail-closed
/// policy whose store is down is 503 `service_unavailable` with `Retry-After`.
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
    /// The budgets shared with other gateways; nil when this gateway counts alone.
    let shared: SharedRateLimiter?
    let now: @Sendable () -> ContinuousClock.Instant
    /// One refusal counter per policy, made at start so that every policy's series exists from zero.
    private let refusals: [String: Counter]

    init(
        routes: RouteTable, limiter: RateLimiter, shared: SharedRateLimiter? = nil, now: @escaping @Sendable () -> ContinuousClock.Instant,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.routes = routes
        self.limiter = limiter
        self.shared = shared
        self.now = now
        self.refusals = Dictionary(
            uniqueKeysWithValues: routes.rateLimits.keys.map { name in
                (name, Counter(label: "gateway_rate_limit_refusals_total", dimensions: [("policy", name)], factory: metrics))
            })
    }

    /// Counts one request of `caller` (nil on a public route without a valid token) from `clientAddress` on `route`,
    /// asking the shared store when the request needs it.
    func admit(_ route: RouteTable.Route, caller: VerifiedAccessToken?, clientAddress: String) async -> Outcome {
        guard let policy = routes.rateLimitPolicy(for: route) else { return .admitted([:]) }
        let client = Self.client(of: policy, caller: caller, clientAddress: clientAddress)
        guard let shared else { return countedHere(policy, client: client) }
        // `decide` asks the store itself, so it never answers `askStore`; were it to, this gateway's own count decides
        // rather than no limit at all.
        return outcome(policy, await shared.decide(policy, client: client, now: now)) ?? countedHere(policy, client: client)
    }

    /// As `admit`, without waiting: nil when only the shared store can decide (the admission then waits for `admit`).
    func admitWithoutWaiting(_ route: RouteTable.Route, caller: VerifiedAccessToken?, clientAddress: String) -> Outcome? {
        guard let policy = routes.rateLimitPolicy(for: route) else { return .admitted([:]) }
        let client = Self.client(of: policy, caller: caller, clientAddress: clientAddress)
        guard let shared else { return countedHere(policy, client: client) }
        return outcome(policy, shared.decideNow(policy, client: client, now: now()))
    }

    /// The outcome from this gateway's own windows (no shared store).
    private func countedHere(_ policy: RateLimitPolicy, client: String) -> Outcome {
        outcome(policy, limiter.admit(key: "\(policy.name)|\(client)", policy: policy, now: now()))
    }

    /// Whose requests `policy` counts together: the user, or the client's address.
    private static func client(of policy: RateLimitPolicy, caller: VerifiedAccessToken?, clientAddress: String) -> String {
        if policy.per == .user, let caller { "user:\(caller.userId)" } else { "ip:\(clientAddress)" }
    }

    private func outcome(_ policy: RateLimitPolicy, _ verdict: SharedRateLimiter.Verdict) -> Outcome? {
        switch verdict {
        case .askStore:
            return nil
        case .unavailable:
            var error = APIError.unavailable("Request limits cannot be checked right now; try again shortly.", retryAfterSeconds: 5)
            error.details = ["policy": policy.name]
            error.headers[.rateLimitPolicy] = policy.policyHeader
            return .refused(error)
        case .decided(let decision):
            return outcome(policy, decision)
        }
    }

    private func outcome(_ policy: RateLimitPolicy, _ decision: RateLimiter.Decision) -> Outcome {
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

extension HTTPField.Name {
    static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    static let rateLimit = HTTPField.Name("RateLimit")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
