import Foundation
import SyncContracts

/// What a write to a water entry came to.
enum WaterChangeOutcome: Sendable, Equatable {
    /// Stored under a new id (201), with its day's `water.logged`.
    case created(WaterEntry)
    /// Replaced an older write of the same id, with the `water.logged` of each day it touched.
    case updated(WaterEntry)
    /// Removed: its tombstone and its day's `water.logged` committed.
    case removed(WaterEntry)
    /// The same write was already applied (same stamp): nothing changed.
    case unchanged(WaterEntry)
    /// Older than the stored write: the stored entry and how the recorded conflict was resolved.
    case ignored(stored: WaterEntry, resolution: SyncConflictResolution)
    /// The id was removed before: removals are kept (`deletion_preserved`), the tombstone's version answered.
    case deletionPreserved(id: String, version: Int, deletedAt: Date)
}
