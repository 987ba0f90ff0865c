import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Which API roots a user may give for their own vision provider, so that a user cannot make the service call hosts
/// on its own machine or network (server-side request forgery): `https` only, no credentials, query or fragment in
/// the URL, and a host that is neither a local name nor, once resolved, any loopback, private, link-local, shared,
/// multicast or reserved address. Hosts in `allowedPrivateHosts` (`MEALS_VISION_USER_ALLOWED_HOSTS`, for an operator's
/// own provider such as Ollama on the local network) may be private and plain `http`. The check runs when the key is
/// stored and again before every use (a name may be pointed elsewhere later); the HTTP client resolves the name once
/// more when it connects, so a name switching between the two lookups is not caught, which is why private networks are
/// refused by address and not by name alone.
struct VisionBaseURLPolicy: Sendable {
    let allowedPrivateHosts: Set<String>

    /// `text` as a URL the service may call, or why not (a sentence for the `baseUrl` field).
    func check(_ text: String) async -> Result<URL, BaseURLRefusal> {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard trimmed.count <= 2048, let components = URLComponents(string: trimmed), let url = components.url,
            let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(), !host.isEmpty
        else { return .failure(BaseURLRefusal("must be a URL such as https://api.openai.com/v1")) }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            return .failure(BaseURLRefusal("must not hold credentials, a query or a fragment"))
        }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if allowedPrivateHosts.contains(bareHost) {
            return scheme == "https" || scheme == "http" ? .success(url) : .failure(BaseURLRefusal("must be an https URL"))
        }
        guard scheme == "https" else { return .failure(BaseURLRefusal("must be an https URL")) }
        if bareHost == "localhost" || [".localhost", ".local", ".internal", ".localdomain"].contains(where: bareHost.hasSuffix) {
            return .failure(BaseURLRefusal("must name a public host"))
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(bareHost) {
            addresses = [literal]
        } else {
            addresses = await Self.resolve(bareHost)
            guard !addresses.isEmpty else { return .failure(BaseURLRefusal("names a host that cannot be resolved")) }
        }
        guard addresses.allSatisfy(\.isPublic) else { return .failure(BaseURLRefusal("must name a public host")) }
        return .success(url)
    }

    /// Every address `host` resolves to; empty when it does not resolve. Runs the blocking lookup off the cooperative pool.
    private static func resolve(_ host: String) async -> [IPAddress] {
        (try? await NIOThreadPool.singleton.runIfActive { lookUp(host) }) ?? []
    }

    private static func lookUp(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        found.append(.v4(withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) }))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        found.append(.v6(withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) }))
                    }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return found
    }
}
