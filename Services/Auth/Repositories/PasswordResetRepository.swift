import Foundation
import NIOCore
import PostgresNIO

/// Single-use password reset tokens, stored as hashes.
struct PasswordResetRepository: Sendable {

    func create(tokenHash: [UInt8], userId: UUID, now: Date, expiresAt: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO password_reset_tokens (token_hash, user_id, created_at, expires_at)
            VALUES (\(ByteBuffer(bytes: tokenHash)), \(userId), \(now), \(expiresAt))
            """, logger: logger)
    }

    /// Uses the token if it is unused and unexpired, and voids the user's other reset tokens; the user it resets.
    func consume(tokenHash: [UInt8], now: Date, on connection: PostgresConnection, logger: Logger) async throws -> UUID? {
        let rows = try await connection.query(
            """
            UPDATE password_reset_tokens SET used_at = \(now)
            WHERE token_hash = \(ByteBuffer(bytes: tokenHash)) AND used_at IS NULL AND expires_at > \(now)
            RETURNING user_id
            """, logger: logger)
        var userId: UUID?
        for try await id in rows.decode(UUID.self) { userId = id }
        guard let userId else { return nil }
        try await connection.query(
            "UPDATE password_reset_tokens SET used_at = \(now) WHERE user_id = \(userId) AND used_at IS NULL", logger: logger)
        return userId
    }
}
