import Configuration
import Foundation
import TestSupport
import Testing

@testable import AuthService

/// The auth service's SMTP sender against a real SMTP server (aiosmtpd) in each TLS mode, with real certificates
/// from a throwaway CA. What arrived is read back as Python's email package decodes it.
@Suite("Mail by SMTP to a real server", .enabled(if: TestSMTPServer.isAvailable), .serialized)
struct SMTPDeliveryTests {
    static let sentAt = Date(timeIntervalSince1970: 1_741_079_100)  // Tue, 04 Mar 2025 09:05:00 UTC

    /// A sender configured as the service would be from these settings (`smtp.host` = `SMTP_HOST`, ...).
    func sender(_ values: [String: String]) throws -> SMTPMailSender {
        let settings = try MailSettings(config: ConfigReaderFactory.make(values))
        let smtp = try #require(settings.smtp, "no SMTP settings made of \(values)")
        return try SMTPMailSender(settings: smtp, now: { Self.sentAt }, logger: TestEnvironment.logger)
    }

    func message(to recipient: String = "ana@example.com", subject: String = "Reset your NutritionAI password", body: String = "Hello\n")
        -> MailMessage
    {
        MailMessage(from: "NutritionAI <no-reply@nutritionai.app>", to: recipient, subject: subject, body: body)
    }

    /// The first mail the server received; fails the test with the server's log when none arrived.
    func firstMail(on server: TestSMTPServer, sourceLocation: SourceLocation = #_sourceLocation) throws -> TestSMTPServer.ReceivedMail {
        try #require(try server.received().first, "nothing arrived; server log:\n\(server.log)", sourceLocation: sourceLocation)
    }

    @Test("implicit TLS: the mail arrives encrypted, signed in with AUTH PLAIN, the relay's certificate checked against SMTP_CA_FILE")
    func implicitTLS() async throws {
        let certificates = try await TestCertificates.shared.value
        try await TestSMTPServer.run(.implicit, certificates: certificates, user: "mailer", password: "relay-secret") { server in
            let sender = try sender([
                "smtp.host": "localhost", "smtp.port": String(server.port), "smtp.tls": "implicit",
                "smtp.ca.file": certificates.authority.path, "smtp.username": "mailer", "smtp.password": "relay-secret",
            ])
            try await sender.send(message(body: "Your link is below.\n"))
            let mail = try firstMail(on: server)
            #expect(mail.tls && mail.login == "mailer")
            #expect(mail.mailFrom == "no-reply@nutritionai.app" && mail.recipients == ["ana@example.com"])
            #expect(mail.body == "Your link is below.\n")
            #expect(try server.authAttempts().map(\.mechanism) == ["PLAIN"])
        }
    }

    @Test("STARTTLS: the session is encrypted before the password is sent, and the relay's address is checked against the certificate")
    func startTLS() async throws {
        let certificates = try await TestCertificates.shared.value
        try await TestSMTPServer.run(.starttls, certificates: certificates, user: "mailer", password: "relay-secret") { server in
            let sender = try sender([
                "smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.tls": "starttls",
                "smtp.ca.file": certificates.authority.path, "smtp.username": "mailer", "smtp.password": "relay-secret",
            ])
            try await sender.send(message())
            let mail = try firstMail(on: server)
            #expect(mail.tls && mail.login == "mailer")
            let attempts = try server.authAttempts()
            #expect(attempts.count == 1 && attempts.allSatisfy { $0.tls && $0.accepted })
        }
    }

    @Test("STARTTLS required: a relay that does not offer it gets neither the password nor the mail")
    func startTLSNotOffered() async throws {
        try await TestSMTPServer.run(.none, user: "mailer", password: "relay-secret") { server in
            let sender = try sender([
                "smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.tls": "starttls",
                "smtp.username": "mailer", "smtp.password": "relay-secret",
            ])
            await #expect(throws: SMTPDeliveryError.startTLSNotOffered) { try await sender.send(message()) }
            #expect(try server.authAttempts().isEmpty, "the password went out in the clear")
            #expect(try server.received().isEmpty)
        }
    }

    @Test("SMTP_TLS=none: a trusted relay gets the mail in plain TCP, AUTH included")
    func plainRelay() async throws {
        try await TestSMTPServer.run(.none, user: "mailer", password: "relay-secret") { server in
            let sender = try sender([
                "smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.tls": "none",
                "smtp.username": "mailer", "smtp.password": "relay-secret",
            ])
            try await sender.send(message())
            let mail = try firstMail(on: server)
            #expect(!mail.tls && mail.login == "mailer")
        }
    }

    @Test("a relay that offers only AUTH LOGIN is signed in with LOGIN")
    func authLogin() async throws {
        let certificates = try await TestCertificates.shared.value
        try await TestSMTPServer.run(
            .implicit, certificates: certificates, user: "mailer", password: "relay-secret", mechanisms: ["LOGIN"]
        ) { server in
            let sender = try sender([
                "smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.ca.file": certificates.authority.path,
                "smtp.username": "mailer", "smtp.password": "relay-secret",
            ])
            try await sender.send(message())
            let mail = try firstMail(on: server)
            #expect(mail.login == "mailer")
            #expect(try server.authAttempts().map(\.mechanism) == ["LOGIN"])
        }
    }

    @Test("a wrong password is refused with 535 and no mail goes out")
    func wrongPassword() async throws {
        let certificates = try await TestCertificates.shared.value
        try await TestSMTPServer.run(.implicit, certificates: certificates, user: "mailer", password: "relay-secret") { server in
            let sender = try sender([
                "smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.ca.file": certificates.authority.path,
                "smtp.username": "mailer", "smtp.password": "not-the-secret",
            ])
            await #expect(throws: SMTPDeliveryError.rejected(step: "AUTH PLAIN", code: 535)) { try await sender.send(message()) }
            #expect(try server.received().isEmpty)
            #expect(try server.authAttempts().map(\.accepted) == [false])
        }
    }

    @Test("a relay whose certificate no trusted CA signed is refused before the password is sent (system roots by default)")
    func untrustedCertificate() async throws {
        let certificates = try await TestCertificates.shared.value
        try await TestSMTPServer.run(.implicit, certificates: certificates, user: "mailer", password: "relay-secret") { server in
            let sender = try sender([
                "smtp.host": "localhost", "smtp.port": String(server.port), "smtp.username": "mailer", "smtp.password": "relay-secret",
            ])
            await #expect(throws: (any Error).self) { try await sender.send(message()) }
            #expect(try server.authAttempts().isEmpty, "the password went to an unverified server")
            #expect(try server.received().isEmpty)
        }
    }

    @Test("lines that begin with a dot arrive intact (a lone dot does not end the mail early), with CRLF line ends only")
    func dotStuffing() async throws {
        try await TestSMTPServer.run(.none) { server in
            let sender = try sender(["smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.tls": "none"])
            let body = "First line\n.\n..two dots\r\n.leading dot\rlast line . with a dot\n"
            try await sender.send(message(body: body))
            let mail = try firstMail(on: server)
            #expect(mail.body == "First line\n.\n..two dots\n.leading dot\nlast line . with a dot\n")
            let bytes = Array(mail.raw.utf8)
            let bareLineEnds = bytes.indices.filter {
                (bytes[$0] == UInt8(ascii: "\n") && ($0 == 0 || bytes[$0 - 1] != UInt8(ascii: "\r")))
                    || (bytes[$0] == UInt8(ascii: "\r") && ($0 + 1 == bytes.count || bytes[$0 + 1] != UInt8(ascii: "\n")))
            }
            #expect(bareLineEnds.isEmpty, "bare CR or LF in the message, which relays reject")
        }
    }

    @Test("every message has an RFC 5322 Date, a unique Message-ID on the sender's domain, and a UTF-8 subject and body that decode back")
    func headers() async throws {
        try await TestSMTPServer.run(.none) { server in
            let sender = try sender(["smtp.host": "127.0.0.1", "smtp.port": String(server.port), "smtp.tls": "none"])
            let accented = "Réinitialisez votre mot de passe NutritionAI 🍎 — le lien expire dans 60 minutes, ne tardez pas"
            let long = "Your NutritionAI password reset link, valid for sixty minutes, is inside this message; open it soon"
            let body = "Bonjour Ana, voici votre lien 🍎\n"
            try await sender.send(message(subject: accented, body: body))
            try await sender.send(message(subject: long))
            let mails = try await server.waitForMail(count: 2)
            try #require(mails.count == 2, "server log:\n\(server.log)")
            #expect(mails.map { $0.header("Subject") } == [accented, long])
            #expect(mails.allSatisfy { $0.dateEpoch == Self.sentAt.timeIntervalSince1970 }, "Date is not the send time in RFC 5322 form")
            let ids = mails.compactMap { $0.header("Message-ID") }
            #expect(ids.count == 2 && Set(ids).count == 2, "Message-IDs missing or repeated: \(ids)")
            #expect(ids.allSatisfy { $0.hasPrefix("<") && $0.hasSuffix("@nutritionai.app>") })
            #expect(mails.allSatisfy { $0.header("From") == "NutritionAI <no-reply@nutritionai.app>" })
            #expect(mails.allSatisfy { $0.header("To") == "ana@example.com" })
            #expect(mails[0].body == body, "a UTF-8 body did not decode back")
            #expect(mails.allSatisfy { $0.defects.isEmpty }, "\(mails.map(\.defects))")
            for mail in mails {
                let headerLines = mail.raw.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
                #expect(headerLines.allSatisfy { $0.utf8.count <= 78 && $0.unicodeScalars.allSatisfy(\.isASCII) }, "\(headerLines)")
            }
            #expect(mails[0].raw.contains("Subject: =?UTF-8?B?"))
        }
    }

    @Test("an unreadable SMTP_CA_FILE stops the service at start with a message naming it, rather than at the first mail")
    func badCAFile() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-ca-\(UUID()).pem").path
        #expect {
            _ = try MailSettings(config: ConfigReaderFactory.make(["smtp.host": "127.0.0.1", "smtp.ca.file": missing]))
        } throws: { error in
            "\(error)".contains("SMTP_CA_FILE") && "\(error)".contains(missing)
        }
    }
}
