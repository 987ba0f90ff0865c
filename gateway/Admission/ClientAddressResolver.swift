import Foundation

/// Decides which address a request comes from. The direct peer, unless the peer is a configured trusted proxy:
/// then `X-Forwarded-For` is read from the right, skipping trusted proxies, and the first other address is the
/// client. A client can prepend anything to that header, so addresses left of the first untrusted one are ignored.
struct ClientAddressResolver: Sendable {
    let trustedProxies: [IPNetwork]

    /// The client's address; `peer` when there is no trusted proxy in between, "unknown" without a peer.
    /// `forwardedFor` is read only when the peer is a trusted proxy.
    func clientAddress(peer: String?, forwardedFor: @autoclosure () -> [String]) -> String {
        guard let peer else { return "unknown" }
        guard !trustedProxies.isEmpty, isTrusted(peer) else { return peer }
        let hops = forwardedFor().flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard IPNetwork.addressBytes(hop) != nil else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    private func isTrusted(_ address: String) -> Bool {
        guard let bytes = IPNetwork.addressBytes(address) else { return false }
        return trustedProxies.contains { $0.contains(bytes) }
    }
}
