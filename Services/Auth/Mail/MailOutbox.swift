import Foundation
import PostgresNIO

/// Queues mail inside the caller's transaction, so a reset token and its mail commit together.
enum MailOutbox {
    static func enqueue(_ message: MailMessage, userId: UUID?, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO mail_outbox (user_id, recipient, subject, body, created_at, next_attempt_at)
            VALUES (\(userId), \(message.to), \(message.subject), \(message.body), \(now), \(now))
            """, logger: logger)
    }
}
