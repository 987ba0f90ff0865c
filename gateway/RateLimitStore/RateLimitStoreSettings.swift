import Configuration
import PostgresSupport
import ServiceDefaults

/// How the gateways share their rate-limit budgets (docs/GATEWAY.md, "Rate limits across gateways"): read only when
/// `POSTGRES_PASSWORD` is set; without it each gateway counts in its own memory, as a single gateway (and the unit
/// tests) always did.
struct RateLimitStoreSettings: Sendable {
    /// The gateway's own schema and role (`POSTGRES_*`; defaults schema `gateway`, role `gateway_service`).
    var postgres: PostgresSettings
    /// Longest wait for one statement of the store (`GATEWAY_RATE_LIMIT_STORE_TIMEOUT_SECONDS`, default 0.5); beyond
    /// it the store counts as down. Also the server-side `statement_timeout` when that is longer.
    var timeout: Duration = .milliseconds(500)
    /// Share of a policy's limit one lease takes, in percent (`GATEWAY_RATE_LIMIT_LEASE_PERCENT`, default 5); a policy
    /// whose lease would be a single request (`auth`, `export`) is counted in the store on every request instead.
    var leasePercent = 5
    /// How often closed windows are deleted (`GATEWAY_RATE_LIMIT_CLEANUP_SECONDS`, default 60).
    var cleanupInterval: Duration = .seconds(60)
    /// How often a store that failed is tried again (`GATEWAY_RATE_LIMIT_STORE_RETRY_SECONDS`, default 1).
    var retryInterval: Duration = .seconds(1)

    /// The settings, or nil when no database password is configured (per-gateway limits).
    static func load(config: ConfigReader) throws -> RateLimitStoreSettings? {
        guard let password = config.string(forKey: "postgres.password", isSecret: true), !password.isEmpty else { return nil }
        var settings = RateLimitStoreSettings(
            postgres: try PostgresSettings(config: config, defaultSchema: "gateway", defaultUser: "gateway_service"))
        settings.timeout = .seconds(config.double(forKey: "gateway.rate.limit.store.timeout.seconds", default: 0.5))
        settings.leasePercent = config.int(forKey: "gateway.rate.limit.lease.percent", default: 5)
        settings.cleanupInterval = .seconds(config.double(forKey: "gateway.rate.limit.cleanup.seconds", default: 60))
        settings.retryInterval = .seconds(config.double(forKey: "gateway.rate.limit.store.retry.seconds", default: 1))
        guard (1...100).contains(settings.leasePercent) else {
            throw ConfigurationError.invalid("GATEWAY_RATE_LIMIT_LEASE_PERCENT", reason: "must be 1 to 100")
        }
        guard settings.timeout > .zero else {
            throw ConfigurationError.invalid("GATEWAY_RATE_LIMIT_STORE_TIMEOUT_SECONDS", reason: "must be above 0")
        }
        settings.postgres.queryTimeout = min(settings.postgres.queryTimeout, settings.timeout)
        return settings
    }
}
