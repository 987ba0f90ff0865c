import EventContracts
import Foundation
import Logging
import ServiceDefaults

/// What the trends routes read: the read models the event consumer keeps (`TrendsEventHandler`). `PostgresTrendsStore`
/// in the service (schema `trends`); router tests use an in-memory one. Every call logs to the request's `logger`.
protocol TrendsStore: Sendable {
    /// The user's data version: 0 before the first event of theirs was applied; any applied event raises it.
    func dataVersion(of userId: UUID, logger: Logger) async throws -> Int64
    /// The user's profile with their goal history; `.standard` before the first profile event.
    func profile(of userId: UUID, logger: Logger) async throws -> TrendsProfile
    /// The stored days of the user within `range` with their water, oldest first (days without meals or water have none).
    func summaries(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [DaySummary]
    /// Every day on which the user consumed a meal, oldest first.
    func loggedDays(of userId: UUID, logger: Logger) async throws -> [CalendarDate]
    /// The totals of the days within each of `spans` (a span given twice is one span, counted once).
    func totals(of userId: UUID, over spans: [ClosedRange<CalendarDate>], logger: Logger) async throws
        -> [ClosedRange<CalendarDate>: PeriodTotals]
    /// The best (highest diet score, then health score) or worst consumed meals of `range`, most recent first among equals.
    func highlights(of userId: UUID, in range: ClosedRange<CalendarDate>, best: Bool, limit: Int, logger: Logger) async throws
        -> [MealHighlight]
    /// Every meal of the user's `day` (consumed and scanned), in the order eaten.
    func meals(of userId: UUID, on day: CalendarDate, logger: Logger) async throws -> [MealSnapshot]
    /// The user's days with a weight or ketone level within `range`, oldest first.
    func bodyMetrics(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [BodyMetricsDay]
}
