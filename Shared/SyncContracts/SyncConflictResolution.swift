/// How a conflict was resolved, as recorded and listed at `GET /api/sync/conflicts`.
public enum SyncConflictResolution: String, Codable, Sendable {
    /// An edit older than the stored state was not applied; the stored state won.
    case staleWriteIgnored = "stale_write_ignored"
    /// An edit of a deleted entity was not applied; the deletion won.
    case deletionPreserved = "deletion_preserved"
    /// A deletion removed an entity whose stored edit was newer than the deletion; the deletion won.
    case deletionOverrodeEdit = "deletion_overrode_edit"

    /// Which side won: `stored` (the state on the server) or `incoming` (the write that arrived).
    public var winner: String {
        switch self {
        case .staleWriteIgnored, .deletionPreserved: "stored"
        case .deletionOverrodeEdit: "incoming"
        }
    }
}
