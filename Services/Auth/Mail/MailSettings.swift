import Configuration
import Foundation
import ServiceDefaults

/// How mail leaves the auth service: by SMTP when `SMTP_HOST` is set, otherwise into files in
/// `AUTH_MAIL_DIRECTORY` (the local stack's default), with a log line naming each file.
struct MailSettings: Sendable {
    /// The sender address (`AUTH_MAIL_FROM`).
    var from: String
    /// Where development mail is written (`AUTH_MAIL_DIRECTORY`, default `.local/mail`).
    var directory: String
    var smtp: SMTPSettings?

    init(config: ConfigReader) throws {
        from = config.string(forKey: "auth.mail.from", default: "NutritionAI <no-reply@nutritionai.app>")
        directory = config.string(forKey: "auth.mail.directory", default: ".local/mail")
        if let host = config.string(forKey: "smtp.host"), !host.isEmpty {
            smtp = try SMTPSettings(host: host, config: config)
        }
    }
}

/// An SMTP relay (`SMTP_HOST`, `SMTP_PORT`, `SMTP_USERNAME`, `SMTP_PASSWORD`, `SMTP_TLS`: `implicit` (default,
/// port 465, RFC 8314) or `none` for a relay on a trusted network (port 25)).
struct SMTPSettings: Sendable {
    var host: String
    var port: Int
    var username: String?
    var password: String?
    var implicitTLS: Bool

    init(host: String, port: Int, username: String? = nil, password: String? = nil, implicitTLS: Bool) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.implicitTLS = implicitTLS
    }

    init(host: String, config: ConfigReader) throws {
        let tls = config.string(forKey: "smtp.tls", default: "implicit")
        guard tls == "implicit" || tls == "none" else { throw ConfigurationError.invalid("SMTP_TLS", reason: "must be implicit or none") }
        self.init(
            host: host, port: config.int(forKey: "smtp.port", default: tls == "implicit" ? 465 : 25),
            username: config.string(forKey: "smtp.username"), password: config.string(forKey: "smtp.password", isSecret: true),
            implicitTLS: tls == "implicit")
    }
}
