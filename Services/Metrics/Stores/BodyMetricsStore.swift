import Foundation
import Logging
import ServiceDefaults
import SyncContracts

/// What the metrics routes read and write: the caller's unit and zone, their recorded days and water entries, every change of a day
/// (which commits with its `weight.logged` event, or, when last-write-wins keeps the stored day, records the
/// conflict), the changes feed and the conflict log. `PostgresBodyMetricsStore` in the service; router tests use an
/// in-memory one. Every call logs to the request's `logger`.
protocol BodyMetricsStore: Sendable {
    /// The user's unit and zone; `.unknown` before the first `user.profile_updated`.
    func profile(of userId: UUID, logger: Logger) async throws -> MetricsProfile

    /// The user's recorded days from `from` to `to` (inclusive), oldest first; emptied days are left out.
    func days(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [DailyMetrics]

    /// Applies `change` to the user's day (empty, version 0, when never recorded) for `write` (removals always
    /// apply) and, unless last-write-wins keeps the stored day, gives it
    /// the next version, change number and its event. `change` may throw (such as 404 for removing what is not
    /// there), which leaves the day untouched.
    func change(
        userId: UUID, date: CalendarDate, write: DayWrite, logger: Logger,
        _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> DayChangeOutcome

    /// The user's water entries from `from` to `to` (inclusive), by day and then as they were logged.
    func waterEntries(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [WaterEntry]

    /// Applies `change` to the user's water entry (a removal when `change.write.isDeletion`; 404 for removing one that
    /// is not there) by `WaterWriteVerdict`: stored or removed with its next version, change number, tombstone and the
    /// `water.logged` of each day it touched, or the conflict it lost recorded.
    func changeWater(userId: UUID, _ change: WaterWrite, logger: Logger) async throws -> WaterChangeOutcome

    /// The user's changes after `since` (recorded days, water entries and tombstones of emptied days and removed entries), oldest first, at most
    /// `limit`. Throws `SyncFeedQuery.expired` when `since` is older than the user's purged tombstones.
    func changes(of userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> [MetricsFeedEntry]

    /// A page of the user's recorded conflicts, newest first.
    func conflicts(of userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue>
}
