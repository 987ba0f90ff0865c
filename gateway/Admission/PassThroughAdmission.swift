import AccessTokens
import Foundation
import HTTPTypes
import NIOHTTP1
import ServiceDefaults

/// The one admission step of every request the gateway receives, decided from its head: CORS preflights, the route
/// table, TRACE and CONNECT, the body's framing and size, the CSRF check of cookie sessions, the caller's token, and
/// the route's rate limit; then where the request goes (`PassThroughDecision`). It decides without suspending
/// whenever it can: a token verified before is in the verifier's cache, and most rate limits are counted here. A
/// token's first request (`AccessTokenVerifier.verify`) and a limit only the shared store can decide
/// (`SharedRateLimiter`: the `auth` policy) wait in `finish`, which suspends only that request.
struct PassThroughAdmission: Sendable {
    /// The upstream that issues sessions, the only one the session cookies are passed to.
    static let sessionUpstream = "auth"

    let routes: RouteTable
    let addresses: ClientAddressResolver
    let verifier: AccessTokenVerifier
    let rateLimits: RateLimitGate
    let clock: GatewayClock
    let cors: CORSRules
    let csrf: CSRFCheck
    let maxBodyBytes: Int
    /// The methods the API document declares per path (405 for another on a known path).
    let declaredMethods: DeclaredMethods
    private let balancers: [String: UpstreamBalancer]

    init(
        routes: RouteTable, balancers: [String: UpstreamBalancer], addresses: ClientAddressResolver, verifier: AccessTokenVerifier,
        rateLimits: RateLimitGate, clock: GatewayClock, webOrigins: WebOrigins, maxBodyBytes: Int,
        declaredMethods: DeclaredMethods = .none
    ) {
        self.routes = routes
        self.balancers = balancers
        self.addresses = addresses
        self.verifier = verifier
        self.rateLimits = rateLimits
        self.clock = clock
        self.cors = CORSRules(origins: webOrigins)
        self.csrf = CSRFCheck(origins: webOrigins)
        self.maxBodyBytes = maxBodyBytes
        self.declaredMethods = declaredMethods
    }

    /// The admission of `request` from `peer` (the direct peer's IP address), whose id is `requestId`; `recent` is
    /// the bearer token its connection sent before (`RecentBearer`), updated when this request's is proved.
    func begin(_ request: HTTPRequest, peer: String?, requestId: String, recent: inout RecentBearer?) -> AdmissionStep {
        let corsHeaders = cors.answerHeaders(for: request)
        let target = request.path ?? "/"
        let path = target[..<(target.utf8.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
        let route = routes.route(for: path)
        if CORSRules.isPreflight(request) {
            switch cors.preflight(request) {
            case .success(let headers): return .decided(.preflight(headers, route: route?.prefix))
            case .failure(let error): return .decided(.refuse(error, route: route?.prefix, closesConnection: false, declaredLength: nil))
            }
        }
        let refuse = { (error: APIError, body: BodyFraming?) -> AdmissionStep in
            var error = error
            error.headers.append(contentsOf: corsHeaders)
            return .decided(
                .refuse(error, route: route?.prefix, closesConnection: body?.closesOnRefusal ?? true, declaredLength: body?.declaredLength))
        }
        guard let route else {
            // The gateway's own paths (health, the document) refuse an undeclared method as the proxied ones do.
            if let error = declaredMethods.refusal(of: request.method, on: path) {
                return refuse(error, try? BodyFraming.of(request, limit: maxBodyBytes).get())
            }
            return .decided(.router(ownRouteRequest(request, requestId: requestId), answerHeaders: corsHeaders))
        }
        let body: BodyFraming
        switch BodyFraming.of(request, limit: route.maxBodyBytes ?? maxBodyBytes) {
        case .success(let framing): body = framing
        case .failure(let error): return refuse(error, nil)
        }
        // A method the document does not declare on a path it describes (TRACE and CONNECT among them): 405 with the
        // path's `Allow`.
        if let error = declaredMethods.refusal(of: request.method, on: path) { return refuse(error, body) }
        // No service answers these (TRACE would echo the request, cookies included), on a path the document does not
        // describe either.
        if request.method == .trace || request.method == .connect {
            let error = APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(request.method.rawValue) is not supported.")
            return refuse(error, body)
        }
        if let error = csrf.refusal(of: request) { return refuse(error, body) }
        var pending = PendingAdmission(
            request: request, route: route, requestId: requestId, body: body, answerHeaders: corsHeaders,
            clientAddress: addresses.clientAddress(peer: peer, forwardedFor: request.headerFields[values: .xForwardedFor]))
        let authorization = request.headerFields.value(of: .authorization)
        if let recent, let authorization, authorization == recent.authorization, verifier.stillHolds(recent.caller, now: clock.date()) {
            pending.caller = recent.caller
            return admit(pending)
        }
        switch BearerCredentials.credential(in: request.headerFields, authorization: authorization) {
        case .accessToken(let token):
            if let verified = verifier.cachedVerification(of: token, now: clock.date()) {
                pending.caller = verified
                recent = authorization.map { RecentBearer(authorization: $0, caller: verified) }
            } else {
                pending.unverifiedToken = token
                return .waiting(pending)
            }
        case .malformed where !route.isPublic:
            return refuse(BearerCredentials.refusal(.malformed), body)
        case .none where !route.isPublic:
            return refuse(BearerCredentials.missing, body)
        case .malformed, .none:
            break
        }
        return admit(pending)
    }

    /// The rate limit's part of an admission whose caller is known: decided here when it can be, else waited for.
    private func admit(_ pending: PendingAdmission) -> AdmissionStep {
        guard let outcome = rateLimits.admitWithoutWaiting(pending.route, caller: pending.caller, clientAddress: pending.clientAddress) else {
            return .waiting(pending)
        }
        return .decided(conclude(pending, outcome))
    }

    /// Completes an admission that had to wait: verifies the token, asks the shared rate-limit store, and decides.
    func finish(_ pending: PendingAdmission) async -> PassThroughDecision {
        var pending = pending
        if let token = pending.unverifiedToken {
            pending.unverifiedToken = nil
            do {
                pending.caller = try await verifier.verify(token, now: clock.date())
            } catch {
                switch (pending.route.isPublic, error) {
                case (true, .keysUnavailable): break
                // A public route does not block on a bad token (sign-in must work with a stale one), but its problem
                // is passed on, so owner-only methods there can answer `token_expired` as private routes do.
                case (true, _): pending.tokenProblem = BearerCredentials.refusal(error).code
                case (false, .keysUnavailable): return pending.refusal(BearerCredentials.keysUnavailable)
                case (false, _): return pending.refusal(BearerCredentials.refusal(error))
                }
            }
        }
        return conclude(pending, await rateLimits.admit(pending.route, caller: pending.caller, clientAddress: pending.clientAddress))
    }

    /// The decision once the caller and the rate limit are known.
    private func conclude(_ pending: PendingAdmission, _ outcome: RateLimitGate.Outcome) -> PassThroughDecision {
        let answerHeaders: HTTPFields
        switch outcome {
        case .refused(let error): return pending.refusal(error)
        case .admitted(let rateLimitHeaders): answerHeaders = pending.answerHeaders + rateLimitHeaders
        }
        let request = pending.request
        let route = pending.route
        let gatewayHeaders = GatewayHeaders(
            requestId: pending.requestId, clientAddress: pending.clientAddress, caller: pending.caller, tokenProblem: pending.tokenProblem)
        if route.upstream == RouteTable.gatewayUpstream {
            var composed = request
            composed.headerFields = HTTPFields(request.headerFields.filter { !GatewayHeaders.isReplaced($0.name) && $0.name != .expect })
            gatewayHeaders.set(on: &composed.headerFields)
            return .compose(composed, answerHeaders: answerHeaders, expectsContinue: pending.body.expectsContinue)
        }
        guard let balancer = balancers[route.upstream] else {
            return pending.refusal(UpstreamClient.unavailable(route.upstream))
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 6)
        for field in request.headerFields {
            let name = field.name
            if Self.notForwarded.contains(name.canonicalName) { continue }
            // The token reaches auth only, which issues it: the others get the caller it names (X-User-Id), as with the cookies.
            if name == .authorization, route.upstream != Self.sessionUpstream { continue }
            if name == .cookie, route.upstream != Self.sessionUpstream {
                // The session cookies hold the tokens: only auth, which issues them, sees them (the others get X-User-Id).
                if let kept = SessionCookies.withoutSession(field.value) { headers.add(name: name.rawName, value: kept) }
                continue
            }
            headers.add(name: name.rawName, value: field.value)
        }
        if pending.body.isChunked { headers.add(name: "Transfer-Encoding", value: "chunked") }
        gatewayHeaders.append(to: &headers)
        return .forward(
            PassThroughRequest(
                route: route.prefix, balancer: balancer,
                head: HTTPRequestHead(
                    version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: FormQuerySpaces.decoded(request.path ?? "/"),
                    headers: headers),
                answerHeaders: answerHeaders, isSafeToRetry: [.get, .head, .options].contains(request.method), hasBody: pending.body.hasBody,
                undeclaredBodyLimit: pending.body.isChunked ? pending.body.limit : nil, expectsContinue: pending.body.expectsContinue))
    }

    /// Names of a client's headers an upstream does not get (one look-up per header): the hop-by-hop ones, those only
    /// the gateway sets, and `Expect` (the gateway answers it).
    static let notForwarded = ProxyHeaders.hopByHop.union(GatewayHeaders.replacedNames).union(["expect"])

    /// A request for the gateway's own routes: without any identity header a client sent, with its request id, and its
    /// query's `+` read as spaces (`FormQuerySpaces`) as the services get it.
    private func ownRouteRequest(_ request: HTTPRequest, requestId: String) -> HTTPRequest {
        var own = request
        own.path = request.path.map(FormQuerySpaces.decoded)
        own.headerFields = HTTPFields(request.headerFields.filter { !GatewayHeaders.isReplaced($0.name) })
        own.headerFields[.requestId] = requestId
        return own
    }
}

/// An admission waiting for a token's verification or the shared rate-limit store; what was decided so far.
struct PendingAdmission: Sendable {
    let request: HTTPRequest
    let route: RouteTable.Route
    let requestId: String
    let body: BodyFraming
    /// CORS headers every answer gets.
    let answerHeaders: HTTPFields
    let clientAddress: String
    /// The verified caller; nil on a public route without a valid token.
    var caller: VerifiedAccessToken?
    /// A token not in the verifier's cache yet.
    var unverifiedToken: String?
    /// On a public route, the error code of a bearer token that did not verify (passed on as `X-Token-Problem`).
    var tokenProblem: String?

    /// The refusal `error`, with the CORS headers.
    func refusal(_ error: APIError) -> PassThroughDecision {
        var error = error
        error.headers.append(contentsOf: answerHeaders)
        return .refuse(error, route: route.prefix, closesConnection: body.closesOnRefusal, declaredLength: body.declaredLength)
    }
}
