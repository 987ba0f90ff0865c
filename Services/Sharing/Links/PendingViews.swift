import Foundation

/// Views of one link counted in memory and not yet written: how many, and when the last one was.
struct PendingViews: Sendable, Equatable {
    var count: Int
    var lastViewedAt: Date

    /// These views and `other` together.
    func adding(_ other: PendingViews) -> PendingViews {
        PendingViews(count: count + other.count, lastViewedAt: max(lastViewedAt, other.lastViewedAt))
    }
}
