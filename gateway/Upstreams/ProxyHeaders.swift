import ServiceDefaults

/// Header names the proxy treats specially, lower-cased.
enum ProxyHeaders {
    /// Headers that describe one connection, not the message (RFC 9110 section 7.6.1), plus `Host`.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host",
        "proxy-authorization", "proxy-authenticate",
    ]

    /// Identity headers only the gateway may set; a client's copies are always removed.
    static let identity: Set<String> = Set(CallerIdentity.gatewayOnlyHeaders.map(\.canonicalName)).union(["x-authenticated-user"])
}
