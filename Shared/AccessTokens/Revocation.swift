import Foundation

/// One ended session, or every session of a user, as the auth service publishes it to the gateways
/// (`GET /internal/revocations`). With `sessionId`, every token of that session is refused (an ended session never
/// gets another token); without it, every token of `userId` issued at or before `revokedAt` is (account deletion).
/// Kept only until `expiresAt`, when the last access token it could refuse has expired anyway.
public struct Revocation: Codable, Sendable, Equatable {
    public var userId: UUID
    public var sessionId: UUID?
    public var revokedAt: Date
    public var expiresAt: Date

    public init(userId: UUID, sessionId: UUID?, revokedAt: Date, expiresAt: Date) {
        self.userId = userId
        self.sessionId = sessionId
        self.revokedAt = revokedAt
        self.expiresAt = expiresAt
    }
}
