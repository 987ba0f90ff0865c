import Foundation

/// A page of a changes feed: `GET /api/sync/changes` (every area, composite cursor) and each area's own feed.
public struct SyncChangePage<State: Codable & Sendable>: Codable, Sendable {
    public var changes: [SyncChange<State>]
    /// Where the next read starts: pass it back as `since`. Never behind the cursor that was sent.
    public var nextCursor: String
    /// Whether more changes are waiting after `nextCursor`.
    public var hasMore: Bool

    public init(changes: [SyncChange<State>], nextCursor: String, hasMore: Bool) {
        self.changes = changes
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }
}
