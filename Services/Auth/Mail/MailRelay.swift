import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceLifecycle

/// Sends queued mail: due rows, oldest first, claimed with `FOR UPDATE SKIP LOCKED` so several instances can run.
/// A failed send (the relay down, a refusal) is retried with doubling pauses (`settings.retryDelay` up to
/// `settings.maxRetryDelay`) until `settings.maxAttempts`. A sent message's body is blanked.
struct MailRelay: Service {
    let client: PostgresPool
    let sender: any MailSender
    let from: String
    let wake: WakeSignal
    let startAfter: StartupLatch
    let settings: MailSettings
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await startAfter.wait()
            while !Task.isCancelled {
                let sent = (try? await sendDue()) ?? 0
                if sent == 0 { await wake.wait(timeout: settings.pollInterval) }
            }
        }
    }

    /// Sends up to ten due messages; the number handled.
    func sendDue() async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT id, recipient, subject, body, attempts FROM mail_outbox
                WHERE sent_at IS NULL AND next_attempt_at <= now() AND attempts < \(settings.maxAttempts)
                ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED
                """, logger: logger)
            var due: [(Int64, String, String, String, Int)] = []
            for try await row in rows.decode((Int64, String, String, String, Int).self) { due.append(row) }
            for (id, recipient, subject, body, attempts) in due {
                do {
                    try await sender.send(MailMessage(from: from, to: recipient, subject: subject, body: body))
                    try await connection.query("UPDATE mail_outbox SET sent_at = now(), body = '' WHERE id = \(id)", logger: logger)
                } catch {
                    let delay = retryPause(afterFailures: attempts + 1).components.seconds
                    logger.warning(
                        "mail delivery failed; will retry", metadata: ["mail_id": "\(id)", "attempt": "\(attempts + 1)", "error": "\(error)"])
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

    /// The pause after the `failures`-th failed attempt: the first retry delay, doubled per further failure, capped.
    func retryPause(afterFailures failures: Int) -> Duration {
        min(settings.retryDelay * (1 << min(max(failures - 1, 0), 20)), settings.maxRetryDelay)
    }
}
