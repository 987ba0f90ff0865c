import HTTPTypes
import NIOHTTP1

/// A request the pass-through forwards: where to, who sent it and what its answer must carry.
struct PassThroughRequest {
    /// The matched route's prefix, the `http.route` of the request metrics.
    var route: String
    /// The upstream's addresses (every one of them plain `http`: `UpstreamBalancer.passesThrough`).
    var balancer: UpstreamBalancer
    /// The request as the upstream gets it (hop-by-hop and identity headers replaced by the gateway's), but for
    /// `Host`, which names the address each attempt goes to.
    var head: HTTPRequestHead
    /// Headers the answer gets beside the upstream's own (`RateLimit`, `RateLimit-Policy`).
    var answerHeaders: HTTPFields
    /// Whether it may be sent once more when a kept-alive connection closed before answering (GET, HEAD, OPTIONS).
    var isSafeToRetry: Bool
    /// Whether a body follows the head (declared by `Content-Length`).
    var hasBody: Bool

    /// The upstream's name in the route table, for spans, logs and errors.
    var upstreamName: String { balancer.name }
}
