import Hummingbird
import WireJSON

/// A request context that carries the request id through handlers, logs and error bodies.
public protocol ServiceRequestContext: RequestContext {
    /// The `X-Request-Id` of this request, taken from the caller or created.
    var requestId: String { get set }
}

/// The request context of every backend service.
public struct AppRequestContext: ServiceRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestId: String
    /// Answers are JSON with lower-case ids and ISO-8601 dates.
    public var responseEncoder: WireJSONEncoder { .iso8601() }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.requestId = ""
    }
}
