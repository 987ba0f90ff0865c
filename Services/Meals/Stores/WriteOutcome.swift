import BackendKit
import PostgresSupport
import SyncContracts

/// What became of a write of an existing entity (`Record` is a meal or custom meal).
enum WriteOutcome<Record: Sendable>: Sendable {
    /// Written (or already exactly so): the entity as stored now.
    case written(Record)
    /// Not applied: the stored entity won (`stale_write_ignored`).
    case kept(Record, SyncConflictResolution)
    /// Not applied: the entity was deleted and stays so (`deletion_preserved`).
    case deleted(SyncTombstone, SyncConflictResolution)
}
