import HTTPTypes
import ServiceDefaults

/// What the gateway does with a request (`PassThroughAdmission`).
enum PassThroughDecision: Sendable {
    /// The router answers it: one of the gateway's own routes (health, the API document and explorer) or a 404. The
    /// request's identity headers are removed and its request id set; the answer gets `answerHeaders` (CORS).
    case router(HTTPRequest, answerHeaders: HTTPFields)
    /// The router answers a route the gateway composes itself (`upstream: gateway` in the routes file: sync, export),
    /// admitted like any other: the request carries the gateway's headers as an upstream gets them (`GatewayHeaders`),
    /// and the answer gets `answerHeaders` (rate limit, CORS).
    case compose(HTTPRequest, answerHeaders: HTTPFields, expectsContinue: Bool)
    /// Answer a CORS preflight with 204 and these headers.
    case preflight(HTTPFields, route: String?)
    /// Answer this error at once (its headers include the CORS ones). The request's body is read and dropped (all of a
    /// `declaredLength` within the route's limit), or the connection closed after the answer when `closesConnection`
    /// (a body too large to read, or one not sent yet).
    case refuse(APIError, route: String?, closesConnection: Bool, declaredLength: Int?)
    /// Forward it to its upstream.
    case forward(PassThroughRequest)
}

/// The admission of one request: decided from its head at once, or after a wait (a token's first verification, or a
/// rate limit only the shared store can decide) that suspends only this request.
enum AdmissionStep: Sendable {
    case decided(PassThroughDecision)
    case waiting(PendingAdmission)
}
