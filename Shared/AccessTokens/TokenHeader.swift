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

/// Base64url without padding (RFC 7515 section 2).
public enum Base64URL {
    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; nil for anything else, including standard base64's `+` and `/`.
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: base64)
    }
}
