import Crypto
import Foundation
import ServiceDefaults

/// A random secret handed to a client once (refresh tokens, password reset tokens) and stored only as its hash.
struct OpaqueToken: Sendable {
    /// What the client receives: 256 random bits, base64url.
    let value: String

    /// A fresh token from the system's secure random source.
    static func generate() -> OpaqueToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return OpaqueToken(value: Base64URL.encode(bytes))
    }

    /// The SHA-256 of a presented token, the only form kept in the database.
    static func hash(_ value: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(value.utf8)))
    }

    var hash: [UInt8] { Self.hash(value) }
}
