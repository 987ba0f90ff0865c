import Foundation

/// One side of a recorded conflict: what was stored (its version, stamp and state, or that it was deleted), or what
/// the incoming write asked for (its stamp and its body).
public struct SyncConflictSide<State: Codable & Sendable>: Codable, Sendable {
    public var version: Int?
    public var modifiedAt: Date
    public var deleted: Bool
    public var data: State?

    public init(version: Int?, modifiedAt: Date, deleted: Bool = false, data: State?) {
        self.version = version
        self.modifiedAt = modifiedAt
        self.deleted = deleted
        self.data = data
    }
}
