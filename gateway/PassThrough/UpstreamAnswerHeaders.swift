import HTTPTypes
import NIOHTTP1

/// An upstream's answer headers as the client gets them: without hop-by-hop headers and the upstream's request id,
/// with the headers the admission decided (rate limit, CORS; a `Vary` of the upstream's is kept beside
/// `Vary: Origin`), the request id and the gateway's `Server`. The upstream's own are copied as its connection's
/// decoder read them (it checked them), not made into HTTPTypes fields and back.
struct UpstreamAnswerHeaders: Sendable {
    /// `Server` of every answer, as the router's answers say it; nil passes the upstream's on.
    let serverName: String?

    /// The client's headers of an answer whose upstream sent `upstream`, to the request `requestId`, which the
    /// admission gave `decided`.
    func headers(_ upstream: HTTPHeaders, decided: HTTPFields, requestId: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(upstream.count + decided.count + 2)
        for (name, value) in upstream where !Self.isNotPassedBack(name) {
            if serverName != nil, ASCIICase.equals(name.utf8, lowercased: "server") { continue }
            headers.add(name: name, value: value)
        }
        for field in decided { headers.add(name: field.name.rawName, value: field.value) }
        headers.add(name: "X-Request-Id", value: requestId)
        if let serverName { headers.add(name: "Server", value: serverName) }
        return headers
    }

    /// Whether an upstream's answer header `name` (in any case) is one the client does not get from it.
    static func isNotPassedBack(_ name: String) -> Bool {
        notPassedBack.contains { ASCIICase.equals(name.utf8, lowercased: $0) }
    }

    /// Upstream answer headers the client does not get from the upstream: the hop-by-hop ones, and the request id,
    /// which the gateway sets.
    private static let notPassedBack = Array(ProxyHeaders.hopByHop.union(["x-request-id"]))
}
