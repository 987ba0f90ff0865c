import Foundation

/// One entry of a changes feed: an entity's full current state, or its tombstone once deleted.
///
/// `seq` is the change's number in its area's feed (meals, metrics or profile): numbers of one user are handed out in
/// commit order, so reading "after n" never skips a change that committed while the page was read.
public struct SyncChange<State: Codable & Sendable>: Codable, Sendable {
    public var seq: Int64
    /// `meal`, `custom_meal`, `body_metrics_day` or `profile`.
    public var type: String
    /// The entity's id: a UUID, or the day (`2026-05-01`) of a body-metrics day.
    public var id: String
    public var version: Int
    public var deleted: Bool
    /// When the state was last written, as the writing client said (`modifiedAt`) or the server's time.
    public var modifiedAt: Date?
    /// A tombstone's deletion time.
    public var deletedAt: Date?
    /// The state as the entity's own `GET` answers it; absent on a tombstone.
    public var data: State?

    /// The current state of a live entity.
    public static func live(seq: Int64, type: String, id: String, version: Int, modifiedAt: Date, data: State) -> Self {
        Self(seq: seq, type: type, id: id, version: version, deleted: false, modifiedAt: modifiedAt, deletedAt: nil, data: data)
    }

    /// What is left of a deleted entity.
    public static func tombstone(seq: Int64, type: String, id: String, version: Int, deletedAt: Date) -> Self {
        Self(seq: seq, type: type, id: id, version: version, deleted: true, modifiedAt: nil, deletedAt: deletedAt, data: nil)
    }
}
