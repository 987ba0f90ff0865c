import AccessTokens
import Hummingbird
import NIOCore
import ServiceDefaults
import WireJSON

/// The gateway's request context: the request id, the peer's address, the matched route and, once the token
/// is verified, the caller.
struct GatewayRequestContext: ServiceRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    var requestId: String
    /// The direct peer (a client or a trusted proxy); nil in router-level tests.
    let remoteAddress: SocketAddress?
    /// The route table entry for this path, set by `RouteMatchMiddleware`.
    var route: RouteTable.Route?
    /// The client's address (see `ClientAddressResolver`), set with the route.
    var clientAddress = "unknown"
    /// The verified caller, set by `AuthenticationMiddleware` on private routes.
    var caller: VerifiedAccessToken?
    /// On a public route, the error code of a bearer token that did not verify (passed on as `X-Token-Problem`).
    var tokenProblem: String?
    /// Answers are JSON with lower-case ids and ISO-8601 dates.
    var responseEncoder: WireJSONEncoder { .iso8601() }

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.requestId = ""
        self.remoteAddress = source.channel.remoteAddress
    }
}
