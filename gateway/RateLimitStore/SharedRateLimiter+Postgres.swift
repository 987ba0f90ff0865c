import Foundation
import Logging
import Metrics
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

extension SharedRateLimiter {
    /// The limiter over the gateway's PostgreSQL schema, and what must run beside it: the schema's pool and
    /// `RateLimitStoreService`. It counts the store as down until the service has applied the migrations.
    static func postgres(
        settings: RateLimitStoreSettings, policies: [String], clock: GatewayClock, metrics: any MetricsFactory = MetricsSystem.factory,
        logger: Logger
    ) throws -> (limiter: SharedRateLimiter, services: [any Service]) {
        let pool = PostgresPool(settings: settings.postgres, logger: logger, metrics: metrics)
        guard let directory = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ConfigurationError.invalid("POSTGRES_PASSWORD", reason: "shared rate limits need the gateway's migrations, which this build lacks")
        }
        let migrations = try Migration.load(from: directory)
        let store = PostgresRateLimitStore(pool: pool, timeout: settings.timeout, migrations: migrations, logger: logger)
        let limiter = SharedRateLimiter(
            store: store, leasePercent: settings.leasePercent, status: RateLimitStoreStatus(isUp: false, metrics: metrics, logger: logger),
            policies: policies, metrics: metrics)
        let service = RateLimitStoreService(
            limiter: limiter, retryInterval: settings.retryInterval, cleanupInterval: settings.cleanupInterval, clock: clock, logger: logger)
        return (limiter, [pool, service])
    }
}
