import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// Every write of a password: the new hash with the sessions it ends, and a reset token with its mail (through the
/// mail outbox), each in one transaction.
struct PasswordStore: Sendable {
    let client: PostgresPool
    let accounts: AccountRepository
    let sessions: SessionRepository
    let resets: PasswordResetRepository

    /// Sets the user's password and ends every other session than `keeping`.
    func change(userId: UUID, to passwordHash: String, keeping sessionId: UUID, now: Date, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await accounts.setPassword(userId: userId, passwordHash: passwordHash, now: now, on: connection, logger: logger)
            try await sessions.endAll(userId: userId, keeping: sessionId, reason: "password_changed", now: now, on: connection, logger: logger)
        }
    }

    /// Stores a reset token for the account of `email` and queues the mail `makeMail` writes to the account's
    /// address; false (nothing written) when no account has that address.
    func queueReset(
        for email: EmailAddress, tokenHash: [UInt8], now: Date, expiresAt: Date, makeMail: @Sendable (_ recipient: String) -> MailMessage,
        logger: Logger
    ) async throws -> Bool {
        try await client.transaction(logger: logger) { connection -> Bool in
            guard let account = try await accounts.credentials(emailKey: email.key, on: connection, logger: logger),
                let user = try await accounts.user(id: account.userId, on: connection, logger: logger)
            else { return false }
            try await resets.create(tokenHash: tokenHash, userId: user.id, now: now, expiresAt: expiresAt, on: connection, logger: logger)
            try await MailOutbox.enqueue(makeMail(user.email), userId: user.id, now: now, on: connection, logger: logger)
            return true
        }
    }

    /// Uses up the reset token, sets the password and ends every session; the account's email key (for the sign-in
    /// throttle), or nil for an unknown, used or expired token.
    func confirmReset(tokenHash: [UInt8], to passwordHash: String, now: Date, logger: Logger) async throws -> String? {
        try await client.transaction(logger: logger) { connection -> String? in
            guard let userId = try await resets.consume(tokenHash: tokenHash, now: now, on: connection, logger: logger),
                let user = try await accounts.user(id: userId, on: connection, logger: logger)
            else { return nil }
            try await accounts.setPassword(userId: userId, passwordHash: passwordHash, now: now, on: connection, logger: logger)
            try await sessions.endAll(userId: userId, keeping: nil, reason: "password_reset", now: now, on: connection, logger: logger)
            return EmailAddress.key(user.email)
        }
    }
}
