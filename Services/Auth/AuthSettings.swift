import AccessTokens
import Configuration
import Foundation
import ServiceDefaults

/// Everything the auth service reads at start, with documented defaults.
struct AuthSettings: Sendable {
    var tokenPolicy: AccessTokenPolicy
    /// The key that signs new tokens and the older public keys that still verify (`AUTH_SIGNING_KEY`,
    /// `AUTH_PREVIOUS_VERIFICATION_KEYS`).
    var signingKeys: SigningKeys
    /// Life of an access token (`AUTH_ACCESS_TOKEN_TTL_SECONDS`, default 900, at most 30 days for clients that cannot refresh).
    var accessTokenLifetime: Duration
    /// Idle life of a session; each refresh extends it (`AUTH_SESSION_TTL_DAYS`, default 30).
    var sessionLifetime: Duration
    /// How long an already-used refresh token is still honoured, for a client's concurrent retry
    /// (`AUTH_REFRESH_REUSE_GRACE_SECONDS`, default 10). Past it, reuse ends the session.
    var refreshReuseGrace: Duration
    var passwords: PasswordHasher.Settings
    var throttle: LoginThrottle.Settings
    /// Life of a password reset link (`AUTH_PASSWORD_RESET_TTL_MINUTES`, default 60).
    var passwordResetLifetime: Duration
    /// The page the reset mail links to; the token is appended as `?token=` (`AUTH_PASSWORD_RESET_URL`).
    var passwordResetURL: String
    var mail: MailSettings

    init(config: ConfigReader) throws {
        tokenPolicy = AccessTokenPolicy(config: config)
        signingKeys = try SigningKeys(config: config)
        let accessSeconds = config.int(forKey: "auth.access.token.ttl.seconds", default: 900)
        guard (60...30 * 86_400).contains(accessSeconds) else {
            throw ConfigurationError.invalid("AUTH_ACCESS_TOKEN_TTL_SECONDS", reason: "must be between 60 seconds and 30 days")
        }
        accessTokenLifetime = .seconds(accessSeconds)
        sessionLifetime = .seconds(config.int(forKey: "auth.session.ttl.days", default: 30) * 86_400)
        refreshReuseGrace = .seconds(config.int(forKey: "auth.refresh.reuse.grace.seconds", default: 10))
        passwords = try PasswordHasher.Settings(config: config)
        throttle = LoginThrottle.Settings(
            freeFailures: config.int(forKey: "auth.login.free.failures", default: 5),
            firstLockout: .seconds(config.int(forKey: "auth.login.first.lockout.seconds", default: 30)),
            maximumLockout: .seconds(config.int(forKey: "auth.login.max.lockout.seconds", default: 900)),
            forgetAfter: .seconds(86_400))
        passwordResetLifetime = .seconds(config.int(forKey: "auth.password.reset.ttl.minutes", default: 60) * 60)
        passwordResetURL = config.string(forKey: "auth.password.reset.url", default: "https://nutritionai.app/reset-password")
        mail = try MailSettings(config: config)
    }
}
