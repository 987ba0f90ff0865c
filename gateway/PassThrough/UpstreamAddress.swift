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
}
