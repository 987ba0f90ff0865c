import Foundation
import Hummingbird
import Logging
import PostgresSupport
import ServiceDefaults
import WireJSON

/// Every write of a session that needs more than one statement: opening one with its tokens, and rotating a refresh
/// token, each in one transaction.
struct SessionStore: Sendable {
    let client: PostgresPool
    let sessions: SessionRepository
    let issuer: SessionIssuer
    let refreshReuseGrace: Duration
    let sessionLifetime: Duration

    /// Opens a session for a signed-in user and answers its tokens.
    func open(userId: UUID, request: Request, now: Date, logger: Logger) async throws -> SessionBody {
        try await client.transaction(logger: logger) { connection in
            let (sessionId, refresh) = try await issuer.open(userId: userId, request: request, now: now, on: connection, logger: logger)
            return try await issuer.body(userId: userId, sessionId: sessionId, refreshToken: refresh, now: now, on: connection, logger: logger)
        }
    }

    /// Rotates the presented refresh token to `next`. A token used before (outside the grace for a concurrent retry)
    /// ends its session: the refusal is returned, not thrown, so that ending the session commits.
    func rotate(presented: String, to next: OpaqueToken, now: Date, logger: Logger) async throws -> Result<SessionBody, APIError> {
        try await client.transaction(logger: logger) { connection -> Result<SessionBody, APIError> in
            switch try await sessions.rotate(
                presentedHash: OpaqueToken.hash(presented), nextHash: next.hash, now: now, grace: refreshReuseGrace,
                sessionLifetime: sessionLifetime, on: connection, logger: logger)
            {
            case .rotated(let userId, let sessionId):
                return .success(
                    try await issuer.body(userId: userId, sessionId: sessionId, refreshToken: next, now: now, on: connection, logger: logger))
            case .reused(let userId, let sessionId):
                logger.warning(
                    "refresh token reused; session ended",
                    metadata: ["user_id": .string(userId.lowercasedString), "session_id": .string(sessionId.lowercasedString)])
                return .failure(
                    APIError(.unauthorized, code: "refresh_token_reused", message: "This refresh token was already used; sign in again."))
            case .invalid:
                return .failure(
                    APIError(
                        .unauthorized, code: "invalid_refresh_token", message: "The refresh token is unknown, expired or ended; sign in again."))
            }
        }
    }
}
