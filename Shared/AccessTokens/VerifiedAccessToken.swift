import Foundation

/// What a valid access token proves: this user, in this session, until `expiresAt`.
public struct VerifiedAccessToken: Sendable, Equatable {
    public var userId: UUID
    public var sessionId: UUID
    public var expiresAt: Date

    public init(userId: UUID, sessionId: UUID, expiresAt: Date) {
        self.userId = userId
        self.sessionId = sessionId
        self.expiresAt = expiresAt
    }
}
