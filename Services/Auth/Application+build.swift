import BackendKit
import Configuration
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The composition root of the auth service: creates every concrete client and wires the routes.
/// Owns schema `auth` (with the kit's sync tables for the profile area of the changes feed); publishes `user.profile_updated` and `user.deleted`; consumes nothing.
/// `now` is the clock every expiry is computed from; tests pass their own.
func buildApplication(config: ConfigReader, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) async throws
    -> BackendApplication
{
    let settings = try AuthSettings(config: config)
    let syncSettings = try SyncSettings(config: config)
    let infrastructure = try ServiceInfrastructure(
        name: "auth", config: config, publishes: [.userProfileUpdated, .userDeleted], uses: [], consumes: false, kitTables: [Migration.sync],
        migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil), logger: logger)
    let client = infrastructure.postgres

    let hasher = PasswordHasher(settings: settings.passwords)
    let accounts = AccountRepository()
    let sessions = SessionRepository(
        revocations: RevocationRepository(lifetime: settings.accessTokenLifetime + settings.tokenPolicy.leeway))
    let throttle = LoginThrottle(client: client, settings: settings.throttle, logger: logger)
    let accessTokens = await AccessTokenIssuer(
        policy: settings.tokenPolicy, lifetime: settings.accessTokenLifetime, signingKeys: settings.signingKeys)
    let issuer = SessionIssuer(sessions: sessions, accounts: accounts, accessTokens: accessTokens, sessionLifetime: settings.sessionLifetime)
    let mailWake = WakeSignal()
    let mailSender: any MailSender
    if let smtp = settings.mail.smtp {
        mailSender = try SMTPMailSender(settings: smtp, now: now, logger: logger)
    } else {
        mailSender = FileMailSender(directory: URL(fileURLWithPath: settings.mail.directory), logger: logger)
    }
    let mailRelay = MailRelay(
        client: client, sender: mailSender, from: settings.mail.from, wake: mailWake, startAfter: infrastructure.migrated,
        settings: settings.mail, logger: logger)

    let router = ServiceRuntime.makeRouter(service: "auth", checks: infrastructure.readinessChecks)
    try KeysController(keys: settings.signingKeys).addRoutes(to: router)
    let accountStore = PostgresAccountStore(client: client, accounts: accounts, issuer: issuer)
    let sessionStore = SessionStore(
        client: client, sessions: sessions, issuer: issuer, refreshReuseGrace: settings.refreshReuseGrace,
        sessionLifetime: settings.sessionLifetime)
    let passwordStore = PasswordStore(
        client: client, accounts: accounts, sessions: sessions, resets: PasswordResetRepository())
    SessionController(
        client: client, accounts: accounts, sessions: sessions, sessionStore: sessionStore, issuer: issuer,
        hasher: hasher, throttle: throttle, sessionLifetime: settings.sessionLifetime, now: now
    ).addRoutes(to: router)
    PasswordController(
        client: client, accounts: accounts, store: passwordStore, issuer: issuer, hasher: hasher, throttle: throttle,
        resetLifetime: settings.passwordResetLifetime, resetURL: settings.passwordResetURL, mailFrom: settings.mail.from,
        mailWake: mailWake, now: now
    ).addRoutes(to: router)
    RegistrationController(store: accountStore, hasher: hasher, sessionLifetime: settings.sessionLifetime, now: now).addRoutes(to: router)
    UserController(store: accountStore, hasher: hasher, now: now)
        .addRoutes(to: router)
    ProfileSyncController(store: accountStore, now: now).addRoutes(to: router)
    ExportController(part: AccountExportTables.part, pool: client).addRoutes(to: router)
    let revocationNotices = RevocationNotices(client: client, notices: NoticeBroadcast(), logger: logger)
    RevocationController(client: client, revocations: sessions.revocations, notices: revocationNotices.notices, now: now)
        .addRoutes(to: router)

    return BackendApplication(
        infrastructure: infrastructure,
        services: [hasher, mailRelay, revocationNotices, infrastructure.syncPurge(syncSettings, idempotencyKeys: false)], router: router,
        http: try HTTPServerSettings(config: config, defaultPort: 8081), logger: logger)
}
