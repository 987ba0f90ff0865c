import APIContracts
import Foundation

/// The unverified JOSE header of a compact JWT, read only to choose (or refuse) a key before checking the signature.
struct TokenHeader: Decodable {
    var alg: String
    var kid: String?
    var crit: [String]?

    /// Parses the header part of `token`; nil when the token is not three dot-separated base64url parts.
    static func parse(_ token: String) -> TokenHeader? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }), let data = Base64URL.decode(parts[0]) else { return nil }
        return try? JSONDecoder().decode(TokenHeader.self, from: data)
    }
}
