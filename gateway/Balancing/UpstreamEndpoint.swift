import Foundation

/// One address of an upstream service, as both request paths use it.
struct UpstreamEndpoint: Sendable, Hashable {
    /// The base URL without a trailing `/`; a request's path and query are appended to it (the router path).
    let base: String
    /// Host and port, which the pass-through connects to; nil for an address it cannot use (`https`, or a base path).
    let address: UpstreamAddress?
    /// `host:port`, the `address` dimension of the upstream metrics and the name in log lines.
    let label: String

    /// The endpoint of `url`, an absolute `http` or `https` URL (`RouteTable` checked it).
    init(url: URL) {
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        let host = url.host ?? ""
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        self.label = "\(host):\(port)"
        let plain = url.scheme?.lowercased() == "http" && (url.path.isEmpty || url.path == "/")
        self.address = plain ? UpstreamAddress(host: host, port: port) : nil
    }
}
