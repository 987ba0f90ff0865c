/// The conflict rule of writes without `If-Match`: the write with the later stamp wins, a deletion wins over any
/// edit, and a write that loses is not applied but recorded.
public enum LastWriteWins {
    /// What happens to an incoming write.
    public enum Verdict: Equatable, Sendable {
        /// Apply it: nothing is stored yet, or it is newer than what is.
        case apply
        /// Nothing to do: it is the very write already stored (a replay).
        case unchanged
        /// Keep what is stored; the write is older (`stale_write_ignored`).
        case ignoreStale
        /// Keep the deletion; edits never bring a deleted entity back (`deletion_preserved`).
        case preserveDeletion
    }

    /// The verdict on an edit stamped `incoming` of an entity last written at `stored` (nil: never written), and
    /// deleted when `storedIsDeletion`.
    public static func edit(incoming: WriteStamp, stored: WriteStamp?, storedIsDeletion: Bool = false) -> Verdict {
        if storedIsDeletion { return .preserveDeletion }
        guard let stored else { return .apply }
        if incoming == stored { return .unchanged }
        return incoming > stored ? .apply : .ignoreStale
    }

    /// Whether a deletion stamped `deletion` of an entity last written at `stored` overrides a newer edit; the
    /// deletion applies either way (the seed's rule: a deletion is preserved), but a newer edit it removes is a
    /// conflict worth recording.
    public static func deletionOverridesNewerEdit(deletion: WriteStamp, stored: WriteStamp) -> Bool {
        stored > deletion
    }
}
