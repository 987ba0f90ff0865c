import Foundation
import JWTKit
import WireJSON

/// The claims of a NutritionAI access token: who (`sub`), which session (`sid`), for whom (`iss`, `aud`), and when.
public struct AccessTokenClaims: JWTPayload, Equatable {
    public var issuer: IssuerClaim
    public var audience: AudienceClaim
    /// The user id.
    public var subject: SubjectClaim
    /// The session id; the auth service ends sessions on logout, password change and reuse of a refresh token.
    public var sessionId: String
    public var issuedAt: IssuedAtClaim
    public var notBefore: NotBeforeClaim?
    public var expiresAt: ExpirationClaim
    /// A unique id per token.
    public var tokenId: IDClaim

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", audience = "aud", subject = "sub", sessionId = "sid"
        case issuedAt = "iat", notBefore = "nbf", expiresAt = "exp", tokenId = "jti"
    }

    public init(
        issuer: String, audience: String, userId: UUID, sessionId: UUID, issuedAt: Date, expiresAt: Date, tokenId: UUID = UUID()
    ) {
        self.issuer = IssuerClaim(value: issuer)
        self.audience = AudienceClaim(value: [audience])
        self.subject = SubjectClaim(value: userId.lowercasedString)
        self.sessionId = sessionId.lowercasedString
        self.issuedAt = IssuedAtClaim(value: issuedAt)
        self.notBefore = nil
        self.expiresAt = ExpirationClaim(value: expiresAt)
        self.tokenId = IDClaim(value: tokenId.lowercasedString)
    }

    /// Times, issuer and audience are checked by `AccessTokenVerifier` against its own clock and policy, which
    /// tests can control; jwt-kit's hook runs after the signature check and has nothing left to add.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
