import AccessTokens
import Configuration
import Foundation
import JWTKit
import ServiceDefaults

/// The Ed25519 key that signs access tokens, plus earlier public keys kept verifiable until their tokens expire.
/// Rotation: generate a new key, move the old key's public part to `AUTH_PREVIOUS_VERIFICATION_KEYS`, restart;
/// drop it from there once the longest access-token lifetime has passed.
struct SigningKeys: Sendable {
    let currentKeyId: String
    let current: EdDSA.PrivateKey
    let previous: [(keyId: String, key: EdDSA.PublicKey)]

    init(currentKeyId: String, current: EdDSA.PrivateKey, previous: [(keyId: String, key: EdDSA.PublicKey)] = []) {
        self.currentKeyId = currentKeyId
        self.current = current
        self.previous = previous
    }

    /// `AUTH_SIGNING_KEY` is `kid:base64url(32-byte Ed25519 seed)`; `AUTH_PREVIOUS_VERIFICATION_KEYS` is a
    /// comma-separated list of `kid:base64url(32-byte public key)`.
    init(config: ConfigReader) throws {
        guard let signing = config.string(forKey: "auth.signing.key", isSecret: true), !signing.isEmpty else {
            throw ConfigurationError.missing(
                "AUTH_SIGNING_KEY", hint: "kid:base64url-ed25519-seed; deploy/stack creates a development key in .local/secrets")
        }
        guard let (keyId, seed) = Self.split(signing), seed.count == 32, let key = try? EdDSA.PrivateKey(d: Base64URL.encode(seed), curve: .ed25519)
        else {
            throw ConfigurationError.invalid("AUTH_SIGNING_KEY", reason: "expected kid:base64url of a 32-byte Ed25519 seed")
        }
        var previous: [(String, EdDSA.PublicKey)] = []
        for entry in config.string(forKey: "auth.previous.verification.keys", default: "").split(separator: ",") {
            guard let (previousId, raw) = Self.split(String(entry).trimmingCharacters(in: .whitespaces)), raw.count == 32,
                let publicKey = try? EdDSA.PublicKey(x: Base64URL.encode(raw), curve: .ed25519), previousId != keyId
            else {
                throw ConfigurationError.invalid(
                    "AUTH_PREVIOUS_VERIFICATION_KEYS", reason: "expected kid:base64url of a 32-byte Ed25519 public key, kids unique")
            }
            previous.append((previousId, publicKey))
        }
        self.init(currentKeyId: keyId, current: key, previous: previous)
    }

    /// A JWK set (RFC 7517) of every public key, current first, for `/.well-known/jwks.json`.
    var jwks: JSONWebKeySet {
        let all = [(currentKeyId, current.publicKey)] + previous.map { ($0.keyId, $0.key) }
        return JSONWebKeySet(keys: all.map { keyId, key in
            .init(kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig", kid: keyId, x: Base64URL.encode(key.rawRepresentation))
        })
    }

    private static func split(_ text: String) -> (String, Data)? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let bytes = Base64URL.decode(parts[1]) else { return nil }
        return (parts[0], bytes)
    }
}

/// The public JWKS document.
struct JSONWebKeySet: Codable, Sendable, Equatable {
    struct Key: Codable, Sendable, Equatable {
        var kty: String
        var crv: String
        var alg: String
        var use: String
        var kid: String
        var x: String
    }

    var keys: [Key]
}
