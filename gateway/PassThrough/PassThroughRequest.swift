import HTTPTypes
import NIOHTTP1

/// A request the pass-through forwards: where to, who sent it and what its answer must carry.
struct PassThroughRequest: Sendable {
    /// The matched route's prefix, the `http.route` of the request metrics.
    var route: String
    /// The upstream's addresses.
    var balancer: UpstreamBalancer
    /// The request as the upstream gets it (hop-by-hop and identity headers replaced by the gateway's), but for
    /// `Host`, which names the address each attempt goes to, and the trace context of its client span.
    var head: HTTPRequestHead
    /// Headers the answer gets beside the upstream's own (`RateLimit`, `RateLimit-Policy`, CORS).
    var answerHeaders: HTTPFields
    /// Whether it may be sent once more when a kept-alive connection closed before answering (GET, HEAD, OPTIONS).
    var isSafeToRetry: Bool
    /// Whether a body follows the head (declared by `Content-Length`, or chunked).
    var hasBody: Bool
    /// The most body bytes it may carry when its length was not declared (chunked); nil when it was (and checked).
    var undeclaredBodyLimit: Int?
    /// The client sent `Expect: 100-continue`: the gateway answers `100 Continue` once it takes the body.
    var expectsContinue: Bool

    /// The body goes up chunked (its length was not declared; the head says `Transfer-Encoding: chunked`).
    var bodyIsChunked: Bool { undeclaredBodyLimit != nil }

    /// The upstream's name in the route table, for spans, logs and errors.
    var upstreamName: String { balancer.name }
}
