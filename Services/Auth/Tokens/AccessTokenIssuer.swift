import AccessTokens
import Foundation
import JWTKit
import ServiceDefaults

/// Signs access tokens with the current key, naming it in `kid`.
struct AccessTokenIssuer: Sendable {
    let policy: AccessTokenPolicy
    let lifetime: Duration
    private let keys: JWTKeyCollection
    private let keyId: JWKIdentifier

    init(policy: AccessTokenPolicy, lifetime: Duration, signingKeys: SigningKeys) async {
        self.policy = policy
        self.lifetime = lifetime
        self.keyId = JWKIdentifier(string: signingKeys.currentKeyId)
        self.keys = await JWTKeyCollection().add(eddsa: signingKeys.current, kid: keyId)
    }

    /// A signed token for `userId` in `sessionId`, and when it expires.
    func issue(userId: UUID, sessionId: UUID, now: Date) async throws -> (token: String, expiresAt: Date) {
        let expiresAt = now.addingTimeInterval(lifetime.timeInterval)
        let claims = AccessTokenClaims(
            issuer: policy.issuer, audience: policy.audience, userId: userId, sessionId: sessionId,
            issuedAt: now, expiresAt: expiresAt)
        var header = JWTHeader()
        header.typ = "JWT"
        return (try await keys.sign(claims, kid: keyId, header: header), expiresAt)
    }
}
