import Foundation
import WireJSON

/// What a valid access token proves: this user, in this session, until `expiresAt`.
public struct VerifiedAccessToken: Sendable, Equatable {
    public let userId: UUID
    public let sessionId: UUID
    /// The token's `iat`, compared with a user-wide revocation's cutoff.
    public let issuedAt: Date
    public let expiresAt: Date
    /// `userId` and `sessionId` as the gateway passes them on (lower-case), made once per verified token rather than
    /// once per request: the verified-token cache hands out the same value for every request of a signed-in client.
    public let userIdText: String
    public let sessionIdText: String

    public init(userId: UUID, sessionId: UUID, issuedAt: Date, expiresAt: Date) {
        self.userId = userId
        self.sessionId = sessionId
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.userIdText = userId.lowercasedString
        self.sessionIdText = sessionId.lowercasedString
    }
}
