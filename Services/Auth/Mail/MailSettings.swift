import Configuration
import Foundation
import ServiceDefaults

/// How mail leaves the auth service: by SMTP when `SMTP_HOST` is set, otherwise into files in
/// `AUTH_MAIL_DIRECTORY` (the local stack's default), with a log line naming each file; and how the mail
/// outbox relay paces its retries.
struct MailSettings: Sendable {
    /// The sender address (`AUTH_MAIL_FROM`).
    var from: String
    /// Where development mail is written (`AUTH_MAIL_DIRECTORY`, default `.local/mail`).
    var directory: String
    var smtp: SMTPSettings?
    /// The relay's pause after a first failed delivery; it doubles with each further failure
    /// (`AUTH_MAIL_RETRY_SECONDS`, default 5, at least 1).
    var retryDelay: Duration
    /// The longest pause between two attempts at one message (`AUTH_MAIL_MAX_RETRY_SECONDS`, default 3600).
    var maxRetryDelay: Duration
    /// How often the relay looks for due mail when nothing wakes it (`AUTH_MAIL_POLL_SECONDS`, default 5, at least 1).
    var pollInterval: Duration
    /// Attempts at one message before the relay gives up on it (10, about 85 minutes with the default pauses).
    var maxAttempts = 10

    init(config: ConfigReader) throws {
        from = config.string(forKey: "auth.mail.from", default: "NutritionAI <no-reply@nutritionai.app>")
        directory = config.string(forKey: "auth.mail.directory", default: ".local/mail")
        if let host = config.string(forKey: "smtp.host"), !host.isEmpty {
            smtp = try SMTPSettings(host: host, config: config)
        }
        let retry = config.int(forKey: "auth.mail.retry.seconds", default: 5)
        guard retry >= 1 else { throw ConfigurationError.invalid("AUTH_MAIL_RETRY_SECONDS", reason: "must be at least 1") }
        let maxRetry = config.int(forKey: "auth.mail.max.retry.seconds", default: 3600)
        guard maxRetry >= retry else {
            throw ConfigurationError.invalid("AUTH_MAIL_MAX_RETRY_SECONDS", reason: "must be at least AUTH_MAIL_RETRY_SECONDS")
        }
        let poll = config.int(forKey: "auth.mail.poll.seconds", default: 5)
        guard poll >= 1 else { throw ConfigurationError.invalid("AUTH_MAIL_POLL_SECONDS", reason: "must be at least 1") }
        retryDelay = .seconds(retry)
        maxRetryDelay = .seconds(maxRetry)
        pollInterval = .seconds(poll)
    }
}
