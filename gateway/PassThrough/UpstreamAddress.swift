/// An upstream service's address, as the pass-through connects to it.
struct UpstreamAddress: Hashable, Sendable {
    var host: String
    var port: Int

    /// `Host` of requests to it.
    var authority: String { "\(host):\(port)" }
}
