import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import ServiceDefaults

/// Applies the matched route's rate-limit policy, counted per policy and per client IP or user: routes that
/// name the same policy share its counter (the seeds' "5 per 15 minutes on the auth endpoints").
/// Every limited answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers);
/// a refusal is 429 `rate_limited` with `Retry-After`, counted in `gateway_rate_limit_refusals_total` by policy.
struct RateLimitMiddleware: RouterMiddleware {
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
        self.refusals = Dictionary(uniqueKeysWithValues: routes.rateLimits.keys.map { name in
            (name, Counter(label: "gateway_rate_limit_refusals_total", dimensions: [("policy", name)], factory: metrics))
        })
    }

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.route, let policy = routes.rateLimitPolicy(for: route) else { return try await next(request, context) }
        let key = "\(policy.name)|\(clientKey(policy: policy, context: context))"
        let decision = limiter.admit(key: key, policy: policy, now: now())
        let headers: HTTPFields = [
            .rateLimitPolicy: policy.policyHeader,
            .rateLimit: "\"\(policy.name)\";r=\(decision.remaining);t=\(decision.resetSeconds)",
        ]
        guard decision.allowed else {
            refusals[policy.name]?.increment()
            var refusal = headers
            refusal[.retryAfter] = String(decision.resetSeconds)
            throw APIError(
                .tooManyRequests, code: "rate_limited",
                message: "Too many requests; try again in \(decision.resetSeconds) seconds.",
                details: ["policy": policy.name, "limit": String(policy.limit), "windowSeconds": String(policy.windowSeconds)],
                headers: refusal)
        }
        var response = try await next(request, context)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// Who is counted: the verified user for per-user policies on private routes, the client address otherwise.
    private func clientKey(policy: RateLimitPolicy, context: GatewayRequestContext) -> String {
        if policy.per == .user, let caller = context.caller { return "user:\(caller.userId)" }
        return "ip:\(context.clientAddress)"
    }
}

extension HTTPField.Name {
    static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    static let rateLimit = HTTPField.Name("RateLimit")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
