import Configuration
import Foundation
import ServiceDefaults

/// How long the sync records are kept, read once at start by every service that serves a changes feed or takes
/// `Idempotency-Key`.
public struct SyncSettings: Sendable {
    /// `SYNC_TOMBSTONE_RETENTION_DAYS` (90): how long deleted entities stay in the changes feed (and resolved
    /// conflicts in their list); a cursor older than that answers 410 `sync_cursor_expired`.
    public var tombstoneRetention: TimeInterval
    /// `IDEMPOTENCY_KEY_RETENTION_HOURS` (168, seven days): how long a key's answer is kept for replays.
    public var idempotencyKeyRetention: TimeInterval
    /// `SYNC_PURGE_INTERVAL_SECONDS` (3600): how often the purges (and history retention) run.
    public var purgeInterval: Duration

    public init(config: ConfigReader) throws {
        let days = config.double(forKey: "sync.tombstone.retention.days", default: 90)
        guard days >= 1 else { throw ConfigurationError.invalid("SYNC_TOMBSTONE_RETENTION_DAYS", reason: "must be at least 1") }
        tombstoneRetention = days * 86_400
        let hours = config.double(forKey: "idempotency.key.retention.hours", default: 168)
        guard hours >= 1 else { throw ConfigurationError.invalid("IDEMPOTENCY_KEY_RETENTION_HOURS", reason: "must be at least 1") }
        idempotencyKeyRetention = hours * 3600
        let interval = config.double(forKey: "sync.purge.interval.seconds", default: 3600)
        guard interval >= 1 else { throw ConfigurationError.invalid("SYNC_PURGE_INTERVAL_SECONDS", reason: "must be at least 1") }
        purgeInterval = .seconds(interval)
    }
}
