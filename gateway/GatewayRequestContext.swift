import Hummingbird
import NIOCore
import ServiceDefaults
import WireJSON

/// The context of a request the gateway's router answers: its own routes and the routes it composes, which the
/// admission (`PassThroughAdmission`) passed on with the gateway's headers (the caller among them) as an upstream
/// gets them.
struct GatewayRequestContext: ServiceRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    var requestId: String
    /// The direct peer (a client or a trusted proxy); nil in router-level tests.
    let remoteAddress: SocketAddress?
    /// Answers are JSON with lower-case ids and ISO-8601 dates.
    var responseEncoder: WireJSONEncoder { .iso8601() }

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.requestId = ""
        self.remoteAddress = source.channel.remoteAddress
    }
}
