import Foundation
import HummingbirdTesting
import PostgresNIO
import PostgresSupport
import Testing

@testable import AuthService

/// The real auth service's mail outbox relay sending a password-reset mail by SMTP (implicit TLS, AUTH, a private
/// CA) to a relay that is down at first.
@Suite(
    "Mail outbox relay to a real SMTP server", .enabled(if: TestEnvironment.isAvailable && TestSMTPServer.isAvailable), .serialized)
struct MailRelayDeliveryTests {
    /// The relay's attempts at the queued mail and whether it counts it as sent.
    func outboxState(_ database: PostgresPool) async throws -> (attempts: Int, sent: Bool)? {
        let rows = try await database.query("SELECT attempts, sent_at IS NOT NULL FROM mail_outbox", logger: TestEnvironment.logger)
        for try await (attempts, sent) in rows.decode((Int, Bool).self) { return (attempts, sent) }
        return nil
    }

    @Test("while the SMTP server is down the relay keeps retrying; once it is up the reset mail arrives, exactly once")
    func serverDownThenUp() async throws {
        let certificates = try await TestCertificates.shared.value
        let port = try TestSMTPServer.freePort()
        let auth = try await TestServices.auth(
            clock: TestClock(),
            extra: [
                "smtp.host": "localhost", "smtp.port": String(port), "smtp.tls": "implicit", "smtp.ca.file": certificates.authority.path,
                "smtp.username": "mailer", "smtp.password": "relay-secret",
                "auth.mail.retry.seconds": "1", "auth.mail.max.retry.seconds": "1", "auth.mail.poll.seconds": "1",
            ])
        let database = auth.infrastructure.postgres
        try await withRunning(auth.infrastructure.services + auth.services) {
            try await TestServices.live([("auth", auth)]) { clients in
                let client = try #require(clients["auth"])
                let user = try await client.register(email: "rosa@example.com")
                let reset = try await client.call(.post, "/api/auth/password-reset", json: #"{"email":"rosa@example.com"}"#)
                #expect(reset.status == .accepted)

                let retried = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                    try await outboxState(database).map { $0.attempts >= 2 && !$0.sent } ?? false
                }
                let state = try await outboxState(database)
                try #require(retried, "the relay did not retry while the server was down: \(String(describing: state))")

                let server = try await TestSMTPServer.start(
                    .implicit, certificates: certificates, user: "mailer", password: "relay-secret", port: port)
                do {
                    let mails = try await server.waitForMail(timeout: .seconds(30))
                    let mail = try #require(mails.first, "the mail never arrived; server log:\n\(server.log)")
                    #expect(mail.recipients == [user.user.email] && mail.header("To") == user.user.email)
                    #expect(mail.header("Subject") == "Reset your NutritionAI password")
                    #expect(mail.body.contains("?token="), "the reset link is missing: \(mail.body)")
                    #expect(mail.tls && mail.login == "mailer")
                    let recorded = try await TestEnvironment.eventually(timeout: .seconds(10)) {
                        try await outboxState(database)?.sent == true
                    }
                    #expect(recorded, "the relay did not record the mail as sent")
                    #expect(try server.received().count == 1, "the mail was sent more than once")
                } catch {
                    await server.stop()
                    throw error
                }
                await server.stop()
            }
        }
    }
}
