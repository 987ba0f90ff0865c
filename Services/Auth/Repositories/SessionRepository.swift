import Foundation
import NIOCore
import PostgresNIO
import ServiceDefaults

/// Sessions and their rotating refresh tokens in schema `auth`. Ending a session records its revocation in the same
/// transaction, so every gateway stops accepting its access tokens (`RevocationRepository`).
struct SessionRepository: Sendable {
    var revocations = RevocationRepository()

    /// A session as listed to its owner.
    struct Session: Sendable, Equatable {
        var id: UUID
        var createdAt: Date
        var lastUsedAt: Date
        var expiresAt: Date
        var userAgent: String?
        var clientAddress: String?
    }

    /// What presenting a refresh token led to.
    enum RefreshOutcome: Equatable {
        /// The token was current (or reused within the grace window): a new one was stored.
        case rotated(userId: UUID, sessionId: UUID)
        /// An already-used token outside the grace window: the session has been ended.
        case reused(userId: UUID, sessionId: UUID)
        /// Unknown token, or its session has ended or expired.
        case invalid
    }

    /// Opens a session whose first refresh token hashes to `refreshHash`.
    func create(
        id: UUID, userId: UUID, refreshHash: [UInt8], now: Date, expiresAt: Date, userAgent: String?, clientAddress: String?,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO sessions (id, user_id, created_at, last_used_at, expires_at, user_agent, client_address)
            VALUES (\(id), \(userId), \(now), \(now), \(expiresAt), \(userAgent), \(clientAddress))
            """, logger: logger)
        try await connection.query(
            "INSERT INTO refresh_tokens (token_hash, session_id, issued_at) VALUES (\(ByteBuffer(bytes: refreshHash)), \(id), \(now))",
            logger: logger)
    }

    /// Rotates a refresh token inside the caller's transaction: marks `presentedHash` used, stores `nextHash`,
    /// and slides the session's expiry. Reuse of a token used more than `grace` ago ends the whole session.
    func rotate(
        presentedHash: [UInt8], nextHash: [UInt8], now: Date, grace: Duration, sessionLifetime: Duration,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> RefreshOutcome {
        let rows = try await connection.query(
            """
            SELECT s.id, s.user_id, t.used_at FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
            WHERE t.token_hash = \(ByteBuffer(bytes: presentedHash)) AND s.ended_at IS NULL AND s.expires_at > \(now)
            FOR UPDATE OF t, s
            """, logger: logger)
        var found: (UUID, UUID, Date?)?
        for try await row in rows.decode((UUID, UUID, Date?).self) { found = row }
        guard let (sessionId, userId, usedAt) = found else { return .invalid }
        if let usedAt, now.timeIntervalSince(usedAt) > grace.timeInterval {
            try await end(sessionId: sessionId, userId: userId, reason: "refresh_token_reused", now: now, on: connection, logger: logger)
            return .reused(userId: userId, sessionId: sessionId)
        }
        if usedAt == nil {
            try await connection.query(
                "UPDATE refresh_tokens SET used_at = \(now) WHERE token_hash = \(ByteBuffer(bytes: presentedHash))", logger: logger)
        }
        try await connection.query(
            "INSERT INTO refresh_tokens (token_hash, session_id, issued_at) VALUES (\(ByteBuffer(bytes: nextHash)), \(sessionId), \(now))",
            logger: logger)
        let expiresAt = now.addingTimeInterval(sessionLifetime.timeInterval)
        try await connection.query(
            "UPDATE sessions SET last_used_at = \(now), expires_at = \(expiresAt) WHERE id = \(sessionId)", logger: logger)
        return .rotated(userId: userId, sessionId: sessionId)
    }

    /// Ends one session of `userId`; false when there was no such active session.
    @discardableResult
    func end(sessionId: UUID, userId: UUID, reason: String, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE sessions SET ended_at = \(now), ended_reason = \(reason)
            WHERE id = \(sessionId) AND user_id = \(userId) AND ended_at IS NULL RETURNING id
            """, logger: logger)
        var ended = false
        for try await _ in rows.decode(UUID.self) { ended = true }
        if ended { try await revocations.revoke(sessionIds: [sessionId], userId: userId, now: now, on: connection, logger: logger) }
        return ended
    }

    /// Ends every active session of `userId` except `keeping`; the number ended.
    @discardableResult
    func endAll(userId: UUID, keeping: UUID?, reason: String, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query(
            """
            UPDATE sessions SET ended_at = \(now), ended_reason = \(reason)
            WHERE user_id = \(userId) AND ended_at IS NULL AND id IS DISTINCT FROM \(keeping) RETURNING id
            """, logger: logger)
        var ended: [UUID] = []
        for try await id in rows.decode(UUID.self) { ended.append(id) }
        try await revocations.revoke(sessionIds: ended, userId: userId, now: now, on: connection, logger: logger)
        return ended.count
    }

    /// Whether the session is active: not ended and not expired.
    func isActive(sessionId: UUID, userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT 1 FROM sessions WHERE id = \(sessionId) AND user_id = \(userId) AND ended_at IS NULL AND expires_at > \(now)
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// The active sessions of `userId`, most recently used first.
    func active(userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> [Session] {
        let rows = try await connection.query(
            """
            SELECT id, created_at, last_used_at, expires_at, user_agent, client_address FROM sessions
            WHERE user_id = \(userId) AND ended_at IS NULL AND expires_at > \(now)
            ORDER BY last_used_at DESC, id LIMIT 500
            """, logger: logger)
        var sessions: [Session] = []
        for try await (id, created, used, expires, agent, address) in rows.decode((UUID, Date, Date, Date, String?, String?).self) {
            sessions.append(Session(id: id, createdAt: created, lastUsedAt: used, expiresAt: expires, userAgent: agent, clientAddress: address))
        }
        return sessions
    }
}
