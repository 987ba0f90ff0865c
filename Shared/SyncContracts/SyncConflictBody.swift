import Foundation

/// A resolved conflict as listed by `GET /api/sync/conflicts` (and each area's own list), newest first.
public struct SyncConflictBody<State: Codable & Sendable>: Codable, Sendable {
    public var id: UUID
    /// `meal`, `custom_meal`, `body_metrics_day` or `profile`.
    public var type: String
    public var entityId: String
    public var resolution: SyncConflictResolution
    /// `stored` or `incoming`.
    public var winner: String
    /// The stored side: its version, stamp and state (absent for a tombstone).
    public var stored: State
    /// The incoming write: its stamp and what it asked for.
    public var incoming: State
    public var resolvedAt: Date

    public init(
        id: UUID, type: String, entityId: String, resolution: SyncConflictResolution, winner: String, stored: State, incoming: State,
        resolvedAt: Date
    ) {
        self.id = id
        self.type = type
        self.entityId = entityId
        self.resolution = resolution
        self.winner = winner
        self.stored = stored
        self.incoming = incoming
        self.resolvedAt = resolvedAt
    }
}

/// A page of conflicts: newest first, `nextCursor` while there are older ones.
public struct SyncConflictPage<State: Codable & Sendable>: Codable, Sendable {
    public var conflicts: [SyncConflictBody<State>]
    public var nextCursor: String?

    public init(conflicts: [SyncConflictBody<State>], nextCursor: String?) {
        self.conflicts = conflicts
        self.nextCursor = nextCursor
    }
}
