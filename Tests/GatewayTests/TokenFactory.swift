import AccessTokens
import Foundation
import JWTKit
import ServiceDefaults

/// Signs test tokens: good ones with the trusted key, and every kind of forgery the gateway must refuse.
struct TokenFactory {
    var keyId = "test-key"
    let key = try! EdDSA.PrivateKey(curve: .ed25519)
    let policy = AccessTokenPolicy(issuer: "nutritionai-auth", audience: "nutritionai-api")
    let userId = UUID()
    let sessionId = UUID()

    /// The JWKS that trusts `key` under `keyId`.
    var jwks: Data {
        let x = Base64URL.encode(key.publicKey.rawRepresentation)
        return Data(#"{"keys":[{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig","kid":"\#(keyId)","x":"\#(x)"}]}"#.utf8)
    }

    func claims(
        issuer: String? = nil, audience: String? = nil, issuedAt: Date = Date(), expiresAt: Date = Date().addingTimeInterval(900)
    ) -> AccessTokenClaims {
        AccessTokenClaims(
            issuer: issuer ?? policy.issuer, audience: audience ?? policy.audience, userId: userId, sessionId: sessionId,
            issuedAt: issuedAt, expiresAt: expiresAt)
    }

    /// A token signed by `signer` (default: the trusted key) naming `kid` (default: the trusted kid).
    func token(_ claims: AccessTokenClaims? = nil, signer: EdDSA.PrivateKey? = nil, kid: String? = nil) async throws -> String {
        let keys = await JWTKeyCollection().add(eddsa: signer ?? key, kid: JWKIdentifier(string: kid ?? keyId))
        return try await keys.sign(claims ?? self.claims(), kid: JWKIdentifier(string: kid ?? keyId))
    }

    /// HS256 over the claims with the public key bytes as the secret: the classic algorithm-confusion forgery.
    func hmacConfusionToken() async throws -> String {
        let keys = await JWTKeyCollection().add(
            hmac: HMACKey(from: key.publicKey.rawRepresentation), digestAlgorithm: .sha256,
            kid: JWKIdentifier(string: keyId))
        return try await keys.sign(claims(), kid: JWKIdentifier(string: keyId))
    }

    /// An unsigned token (`alg: none`) with the trusted kid.
    func unsignedToken() throws -> String {
        let header = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT","kid":"\#(keyId)"}"#.utf8))
        let payload = Base64URL.encode(try JSONEncoder().encode(claims()))
        return "\(header).\(payload)."
    }

    /// A good token with its header replaced (for `crit` and missing-`kid` cases); the signature no longer matches
    /// either way, but the verifier must refuse before checking it.
    func token(withHeader headerJSON: String) async throws -> String {
        let parts = try await token().split(separator: ".")
        return "\(Base64URL.encode(Data(headerJSON.utf8))).\(parts[1]).\(parts[2])"
    }
}
