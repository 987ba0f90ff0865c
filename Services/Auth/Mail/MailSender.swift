/// Delivers mail; the relay retries when it throws. Implementations: `FileMailSender` for development,
/// `SMTPMailSender` when SMTP settings are given.
protocol MailSender: Sendable {
    func send(_ message: MailMessage) async throws
}
