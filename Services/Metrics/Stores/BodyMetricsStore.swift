import Foundation
import Logging
import ServiceDefaults

/// What the metrics routes read and write: the caller's unit and zone, their recorded days, and every change of a
/// day, which commits with its `weight.logged` event. `PostgresBodyMetricsStore` in the service; router tests use
/// an in-memory one. Every call logs to the request's `logger`.
protocol BodyMetricsStore: Sendable {
    /// The user's unit and zone; `.unknown` before the first `user.profile_updated`.
    func profile(of userId: UUID, logger: Logger) async throws -> MetricsProfile

    /// The user's recorded days from `from` to `to` (inclusive), oldest first; emptied days are left out.
    func days(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [DailyMetrics]

    /// Applies `change` to the user's day (empty, version 0, when never recorded) and gives it the next version and
    /// its event. `change` may throw (such as 404 for removing what is not there), which leaves the day untouched.
    func change(
        userId: UUID, date: CalendarDate, logger: Logger, _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> (before: DailyMetrics, after: DailyMetrics)
}
