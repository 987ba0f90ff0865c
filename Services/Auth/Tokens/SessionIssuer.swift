import Foundation
import HTTPTypes
import Hummingbird
import PostgresNIO
import ServiceDefaults

/// Opens sessions and answers with their tokens: one refresh token (stored as a hash) per session step and a
/// short-lived signed access token.
struct SessionIssuer: Sendable {
    let sessions: SessionRepository
    let accounts: AccountRepository
    let accessTokens: AccessTokenIssuer
    let sessionLifetime: Duration

    /// Opens a session for `userId` inside the caller's transaction; its id and first refresh token.
    func open(userId: UUID, request: Request, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> (UUID, OpaqueToken) {
        let sessionId = UUID()
        let refresh = OpaqueToken.generate()
        try await sessions.create(
            id: sessionId, userId: userId, refreshHash: refresh.hash, now: now,
            expiresAt: now.addingTimeInterval(sessionLifetime.timeInterval),
            userAgent: request.headers[.userAgent].map { String($0.prefix(256)) },
            clientAddress: request.headers[CallerIdentity.clientAddressHeader].map { String($0.prefix(64)) }, on: connection, logger: logger)
        return (sessionId, refresh)
    }

    /// The session answer: a fresh access token plus the account and profile.
    func body(userId: UUID, sessionId: UUID, refreshToken: OpaqueToken, now: Date, on connection: PostgresConnection, logger: Logger) async throws
        -> SessionBody
    {
        let account = try await account(userId: userId, on: connection, logger: logger)
        let (token, expiresAt) = try await accessTokens.issue(userId: userId, sessionId: sessionId, now: now)
        return SessionBody(
            token: token, accessToken: token, expiresAt: expiresAt, expiresIn: Int(expiresAt.timeIntervalSince(now)),
            refreshToken: refreshToken.value, sessionId: sessionId, user: account.user, profile: account.profile)
    }

    /// The account and profile as shown to their owner; 401 `session_ended` when the account is gone.
    func account(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> MeBody {
        guard let user = try await accounts.user(id: userId, on: connection, logger: logger),
            let profile = try await accounts.profile(userId: userId, on: connection, logger: logger)
        else {
            throw APIError(.unauthorized, code: "session_ended", message: "This account no longer exists.")
        }
        return MeBody(
            user: UserBody(id: user.id, email: user.email, displayName: profile.displayName, createdAt: user.createdAt),
            profile: ProfileBody(profile))
    }

    /// Throws 401 `session_ended` unless the caller's session is still active (the access token alone outlives a logout).
    func requireActive(_ caller: CallerIdentity, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        guard try await sessions.isActive(sessionId: caller.sessionId, userId: caller.userId, now: now, on: connection, logger: logger) else {
            throw APIError(.unauthorized, code: "session_ended", message: "This session has ended; sign in again.")
        }
    }
}
