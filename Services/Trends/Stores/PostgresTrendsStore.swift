import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// The trends store in schema `trends`, one reader per read model.
struct PostgresTrendsStore: TrendsStore {
    let versions: DataVersionReader
    let profiles: ProfileReader
    let summaries: DaySummaryReader
    let meals: MealReader
    let metrics: BodyMetricsReader

    init(client: PostgresPool) {
        versions = DataVersionReader(client: client)
        profiles = ProfileReader(client: client)
        summaries = DaySummaryReader(client: client)
        meals = MealReader(client: client)
        metrics = BodyMetricsReader(client: client)
    }

    func dataVersion(of userId: UUID, logger: Logger) async throws -> Int64 {
        try await versions.version(of: userId, logger: logger)
    }

    func profile(of userId: UUID, logger: Logger) async throws -> TrendsProfile {
        try await profiles.profile(of: userId, logger: logger)
    }

    func summaries(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [DaySummary] {
        try await summaries.summaries(of: userId, in: range, logger: logger)
    }

    func loggedDays(of userId: UUID, logger: Logger) async throws -> [CalendarDate] {
        try await summaries.loggedDays(of: userId, logger: logger)
    }

    func totals(of userId: UUID, over spans: [ClosedRange<CalendarDate>], logger: Logger) async throws
        -> [ClosedRange<CalendarDate>: PeriodTotals]
    {
        try await summaries.totals(of: userId, over: spans, logger: logger)
    }

    func highlights(of userId: UUID, in range: ClosedRange<CalendarDate>, best: Bool, limit: Int, logger: Logger) async throws
        -> [MealHighlight]
    {
        try await meals.highlights(of: userId, in: range, best: best, limit: limit, logger: logger)
    }

    func meals(of userId: UUID, on day: CalendarDate, logger: Logger) async throws -> [MealSnapshot] {
        try await meals.meals(of: userId, on: day, logger: logger)
    }

    func bodyMetrics(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [BodyMetricsDay] {
        try await metrics.days(of: userId, in: range, logger: logger)
    }
}
