import Foundation
import PostgresSupport

extension ServiceInfrastructure {
    /// The purge a service with sync tables runs, each round on one replica: tombstones and resolved conflicts past
    /// `SYNC_TOMBSTONE_RETENTION_DAYS` when it serves a changes feed (moving the users' cursor-expiry marks), and, when it takes
    /// `Idempotency-Key`, keys past `IDEMPOTENCY_KEY_RETENTION_HOURS`.
    public func syncPurge(_ settings: SyncSettings, tombstones: Bool = true, idempotencyKeys: Bool) -> PeriodicJob {
        let client = postgres
        let keys = IdempotencyKeys(client: client, lease: .seconds(60))
        return periodicJob(name: "sync-purge", every: settings.purgeInterval) { logger in
            let now = Date()
            let purgedTombstones =
                tombstones ? try await SyncTombstones.purge(olderThan: now - settings.tombstoneRetention, client: client, logger: logger) : 0
            let expiredKeys = idempotencyKeys ? try await keys.purge(olderThan: now - settings.idempotencyKeyRetention, logger: logger) : 0
            if purgedTombstones + expiredKeys > 0 {
                logger.info("sync records purged", metadata: ["tombstones": "\(purgedTombstones)", "idempotency_keys": "\(expiredKeys)"])
            }
        }
    }
}
