/// An upstream service's address, as the pass-through connects to it.
struct UpstreamAddress: Hashable, Sendable {
    let host: String
    let port: Int
    /// `Host` of requests to it.
    let authority: String

    init(host: String, port: Int) {
        self.host = host
        self.port = port
        self.authority = "\(host):\(port)"
    }

    // The authority follows from the host and port: it is not hashed or compared again.
    static func == (left: UpstreamAddress, right: UpstreamAddress) -> Bool { left.port == right.port && left.host == right.host }

    func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
    }
}
