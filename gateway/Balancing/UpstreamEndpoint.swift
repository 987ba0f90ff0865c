import Foundation

/// One address of an upstream service: the pass-through connects to its host and port, the composed routes'
/// `UpstreamClient` calls its base URL.
struct UpstreamEndpoint: Sendable, Hashable {
    /// The base URL without a trailing `/`; a request's path and query are appended to it (`UpstreamClient`).
    let base: String
    /// Host and port, which the pass-through connects to.
    let address: UpstreamAddress
    /// `host:port`, the `address` dimension of the upstream metrics and the name in log lines.
    let label: String

    /// The endpoint of `url`, an `http://host:port` URL (`RouteTable` checked it).
    init(url: URL) {
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        let host = url.host ?? ""
        let port = url.port ?? 80
        self.label = "\(host):\(port)"
        self.address = UpstreamAddress(host: host, port: port)
    }
}
