import AccessTokens
import HTTPTypes
import NIOHTTP1
import ServiceDefaults

/// The headers only the gateway sets on a request it passes on, to an upstream or to its own composed routes: the
/// request id, the client's address, the verified caller (`X-User-Id`, `X-Session-Id`) or on a public route the
/// problem of its token, and the scheme the gateway was reached by (`http`: it serves no TLS itself). A client's
/// copies of them are never passed on.
struct GatewayHeaders: Sendable {
    var requestId: String
    var clientAddress: String
    var caller: VerifiedAccessToken?
    var tokenProblem: String?

    /// Names a client may not set: the identity headers, the request id (replaced by the one the gateway adopted) and
    /// the scheme.
    static let replacedNames: Set<String> = ProxyHeaders.identity.union(["x-request-id", "x-forwarded-proto"])

    static func isReplaced(_ name: HTTPField.Name) -> Bool { replacedNames.contains(name.canonicalName) }

    /// Gives `body` each name and value, in the order they are set (no array made per request).
    private func forEach(_ body: (HTTPField.Name, String) -> Void) {
        body(.requestId, requestId)
        body(CallerIdentity.clientAddressHeader, clientAddress)
        if let caller {
            body(CallerIdentity.userIdHeader, caller.userIdText)
            body(CallerIdentity.sessionIdHeader, caller.sessionIdText)
        } else if let tokenProblem {
            body(CallerIdentity.tokenProblemHeader, tokenProblem)
        }
        body(Self.forwardedProto, "http")
    }

    /// Adds the names and values to `headers`, which hold none of them (a client's copies were left out).
    func append(to headers: inout HTTPHeaders) {
        forEach { name, value in headers.add(name: name.rawName, value: value) }
    }

    func set(on fields: inout HTTPFields) {
        forEach { name, value in fields[name] = value }
    }

    /// Copies the gateway's headers of an admitted request (`fields`) to a request the gateway makes for it (a part of
    /// a composed route).
    static func copy(from fields: HTTPFields, to headers: inout HTTPHeaders) {
        for field in fields where replacedNames.contains(field.name.canonicalName) {
            headers.replaceOrAdd(name: field.name.rawName, value: field.value)
        }
    }

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
