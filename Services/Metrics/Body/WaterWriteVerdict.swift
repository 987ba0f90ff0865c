import SyncContracts

/// What last-write-wins makes of a write to a water entry (an entity of its own, like a meal: a removed entry is never
/// brought back by an edit, the client logs a new one).
enum WaterWriteVerdict: Sendable, Equatable {
    /// Store it under a new id.
    case create
    /// Replace (or, for a removal, remove) the stored entry; `overrodeNewerEdit` for a removal older than the stored
    /// write (recorded as a conflict).
    case apply(overrodeNewerEdit: Bool)
    /// The very write already stored (a replay), or an import item without `modifiedAt` of an id already written.
    case unchanged
    /// Older than the stored write: keep it, record the conflict (`stale_write_ignored`).
    case ignoreStale
    /// The id was removed: keep the removal (`deletion_preserved`).
    case preserveDeletion
    /// A removal of an id never written (or already removed): 404.
    case notFound

    /// The verdict on `write` (`isDeletion` for a removal) of an id stored as `stored` (nil: none), `wasRemoved` when
    /// the id has a tombstone. A server-timed write wins a tie of the millisecond, as for days.
    static func of(_ write: DayWrite, keepsExisting: Bool = false, stored: WaterEntry?, wasRemoved: Bool) -> WaterWriteVerdict {
        if wasRemoved { return write.isDeletion ? .notFound : .preserveDeletion }
        guard let stored else { return write.isDeletion ? .notFound : .create }
        if write.isDeletion {
            return .apply(overrodeNewerEdit: LastWriteWins.deletionOverridesNewerEdit(deletion: write.stamp, stored: stored.modified))
        }
        if keepsExisting { return .unchanged }
        if write.isServerTimed, stored.modified.millis <= write.stamp.millis { return .apply(overrodeNewerEdit: false) }
        switch LastWriteWins.edit(incoming: write.stamp, stored: stored.modified) {
        case .apply: return .apply(overrodeNewerEdit: false)
        case .unchanged: return .unchanged
        case .ignoreStale: return .ignoreStale
        case .preserveDeletion: return .preserveDeletion
        }
    }
}
