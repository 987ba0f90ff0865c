import SyncContracts

/// What last-write-wins makes of a write to a day (a body-metrics day is one entity: its id is the date).
enum DayWriteVerdict: Sendable, Equatable {
    /// Apply it; `overrodeNewerEdit` when it is a deletion older than the stored write (recorded as a conflict).
    case apply(overrodeNewerEdit: Bool)
    /// The very write already stored (a replay): answer the stored day, change nothing.
    case unchanged
    /// Older than the stored write: keep the stored day, record the conflict and answer it with `resolution`.
    case ignore(SyncConflictResolution)

    /// The verdict on `write` to `stored` (version 0: never written). Deletions always apply. An edit older than
    /// the write that emptied the day is `deletion_preserved`; an edit newer than it fills the day again (a day,
    /// unlike a meal, is logged again under the same id). A server-timed write wins a tie of the millisecond.
    static func of(_ write: DayWrite, stored: DailyMetrics) -> DayWriteVerdict {
        let incoming = write.stamp
        let storedStamp = stored.version == 0 ? nil : stored.modified
        if write.isDeletion {
            let overrode = storedStamp.map { LastWriteWins.deletionOverridesNewerEdit(deletion: incoming, stored: $0) } ?? false
            return .apply(overrodeNewerEdit: overrode)
        }
        if write.isServerTimed, let storedStamp, storedStamp.millis <= incoming.millis { return .apply(overrodeNewerEdit: false) }
        switch LastWriteWins.edit(incoming: incoming, stored: storedStamp) {
        case .apply: return .apply(overrodeNewerEdit: false)
        case .unchanged: return .unchanged
        case .ignoreStale: return .ignore(stored.isEmpty ? .deletionPreserved : .staleWriteIgnored)
        case .preserveDeletion: return .ignore(.deletionPreserved)
        }
    }
}
