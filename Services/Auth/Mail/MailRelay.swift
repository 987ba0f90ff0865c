import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle

/// Sends queued mail: due rows, oldest first, claimed with `FOR UPDATE SKIP LOCKED` so several instances can run.
/// A failed send is retried with doubling delays (from 5 seconds, at most an hour apart) up to `maxAttempts`.
/// A sent message's body is blanked.
struct MailRelay: Service {
    let client: PostgresClient
    let sender: any MailSender
    let from: String
    let wake: WakeSignal
    let startAfter: StartupLatch
    let pollInterval: Duration
    let maxAttempts: Int
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await startAfter.wait()
            while !Task.isCancelled {
                let sent = (try? await sendDue()) ?? 0
                if sent == 0 { await wake.wait(timeout: pollInterval) }
            }
        }
    }

    /// Sends up to ten due messages; the number handled.
    func sendDue() async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT id, recipient, subject, body, attempts FROM mail_outbox
                WHERE sent_at IS NULL AND next_attempt_at <= now() AND attempts < \(maxAttempts)
                ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED
                """, logger: logger)
            var due: [(Int64, String, String, String, Int)] = []
            for try await row in rows.decode((Int64, String, String, String, Int).self) { due.append(row) }
            for (id, recipient, subject, body, attempts) in due {
                do {
                    try await sender.send(MailMessage(from: from, to: recipient, subject: subject, body: body))
                    try await connection.query("UPDATE mail_outbox SET sent_at = now(), body = '' WHERE id = \(id)", logger: logger)
                } catch {
                    let delay = min(5 * (1 << min(attempts, 10)), 3600)
                    logger.warning("mail delivery failed; will retry", metadata: ["mail_id": "\(id)", "attempt": "\(attempts + 1)", "error": "\(error)"])
                    try await connection.query(
                        """
                        UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => \(delay))
                        WHERE id = \(id)
                        """, logger: logger)
                }
            }
            return due.count
        }
    }
}
