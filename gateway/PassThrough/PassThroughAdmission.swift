import AccessTokens
import Foundation
import HTTPTypes
import NIOHTTP1
import ServiceDefaults

/// Decides, from a request's head and without suspending, whether the pass-through forwards it itself and with which
/// headers: the apps' everyday request (a proxied route, a bearer token already verified or none on a public route,
/// no body or one of declared length within the limit, under its rate limit).
/// Everything else is delegated to the router, whose middleware handles it exactly as before: browsers' requests
/// (`Origin` or cookies: CORS and CSRF), tokens not yet in the verified-token cache (the router verifies and caches
/// them, so the client's next request passes through), missing or refused tokens, bodies of unknown or excessive
/// length, `Expect`, TRACE and CONNECT, requests whose rate limit only the shared store can decide
/// (`SharedRateLimiter`: the `auth` policy), and the gateway's own routes. (While tracing is on there is no
/// pass-through: see `makeGatewayApplication`.)
/// The checks that are kept here are the router's own: the route table, `ClientAddressResolver`,
/// `RateLimitGate`, `AccessTokenVerifier`'s cache and `RequestIdMiddleware.acceptable`.
struct PassThroughAdmission: Sendable {
    let routes: RouteTable
    let addresses: ClientAddressResolver
    let verifier: AccessTokenVerifier
    let rateLimits: RateLimitGate
    let clock: GatewayClock
    /// Set when any web origin is configured: answers then vary by `Origin` (as `CORSMiddleware` says on its answers).
    let variesByOrigin: Bool
    let maxBodyBytes: Int
    /// The balancers of the upstreams the pass-through can reach (plain `http` addresses); the others' requests go to
    /// the router.
    private let upstreams: [String: UpstreamBalancer]

    init(
        routes: RouteTable, balancers: [String: UpstreamBalancer], addresses: ClientAddressResolver, verifier: AccessTokenVerifier,
        rateLimits: RateLimitGate, clock: GatewayClock, webOrigins: WebOrigins, maxBodyBytes: Int
    ) {
        self.routes = routes
        self.addresses = addresses
        self.verifier = verifier
        self.rateLimits = rateLimits
        self.clock = clock
        self.variesByOrigin = !webOrigins.isEmpty
        self.maxBodyBytes = maxBodyBytes
        self.upstreams = balancers.filter { $0.value.passesThrough }
    }

    /// The decision for `request` from `peer` (the direct peer's IP address), whose id is `requestId`.
    func decide(_ request: HTTPRequest, peer: String?, requestId: String) -> PassThroughDecision {
        guard request.method != .trace, request.method != .connect else { return .delegate }
        guard let target = request.path, let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first,
            let route = routes.route(for: path), route.upstream != RouteTable.gatewayUpstream, let upstream = upstreams[route.upstream]
        else { return .delegate }
        let fields = request.headerFields
        guard fields[.origin] == nil, fields[.cookie] == nil, fields[.expect] == nil else { return .delegate }
        let hasBody: Bool
        switch (request.method, fields[.contentLength].map { Int($0) }) {
        case (.get, nil), (.head, nil): hasBody = false
        case (.get, _), (.head, _): return .delegate
        case (_, .some(.some(let length))) where length <= (route.maxBodyBytes ?? maxBodyBytes): hasBody = length > 0
        default: return .delegate  // no length (chunked), an unreadable one, or over the limit: the router's 413
        }
        var caller: VerifiedAccessToken?
        if let authorization = fields[.authorization] {
            guard let token = AuthenticationMiddleware.bearerToken(authorization),
                let verified = verifier.cachedVerification(of: token, now: clock.date())
            else { return .delegate }
            caller = verified
        } else if !route.isPublic {
            return .delegate
        }
        let clientAddress = addresses.clientAddress(peer: peer, forwardedFor: fields[values: .xForwardedFor])
        // A request only the shared store can decide (a fail-closed policy such as `auth`) waits for it in the router.
        guard let rateLimit = rateLimits.admitWithoutWaiting(route, caller: caller, clientAddress: clientAddress) else { return .delegate }
        switch rateLimit {
        case .refused(let error):
            return .refuse(error, route: route.prefix)
        case .admitted(let answerHeaders):
            return .forward(
                PassThroughRequest(
                    route: route.prefix, balancer: upstream,
                    head: upstreamHead(request, caller: caller, clientAddress: clientAddress, requestId: requestId),
                    answerHeaders: answerHeaders, isSafeToRetry: [.get, .head, .options].contains(request.method), hasBody: hasBody))
        }
    }

    /// The request as its upstream gets it: the client's headers without hop-by-hop and identity ones, then the
    /// headers only the gateway sets (`Host` is set per attempt, by `PassThroughHandler`).
    private func upstreamHead(
        _ request: HTTPRequest, caller: VerifiedAccessToken?, clientAddress: String, requestId: String
    ) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 6)
        for field in request.headerFields {
            let name = field.name.canonicalName
            if ProxyHeaders.hopByHop.contains(name) || ProxyHeaders.identity.contains(name) { continue }
            headers.add(name: field.name.rawName, value: field.value)
        }
        UpstreamClient.setGatewayHeaders(
            on: &headers, requestId: requestId, clientAddress: clientAddress, caller: caller, tokenProblem: nil, scheme: "http")
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: request.path ?? "/", headers: headers)
    }
}
