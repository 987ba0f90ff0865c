import Foundation
import Hummingbird
import Logging
import ServiceDefaults

/// `GET /api/trends?period=7d|30d|90d`, served from the user's ready report while their data is unchanged.
struct TrendsController: Sendable {
    let reports: ReadyReports
    let store: any TrendsStore
    let now: @Sendable () -> Date

    /// Weigh-ins this many days before a period warm the weight trend up.
    static let weightWarmUpDays = 60
    /// How many best and worst meals a report lists.
    static let highlightCount = 3

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/trends", use: trends)
    }

    @Sendable func trends(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        var reader = TrendsQueryReader(request, today: state.profile.today(now: now()), now: now())
        let period = reader.period()
        try reader.check()
        let today = reader.today
        return try await reports.answer("trends/\(period.rawValue)/\(today)", of: state, encoder: context.responseEncoder, logger: context.logger) {
            try await report(of: caller.userId, period: period, today: today, profile: state.profile, logger: context.logger)
        }
    }

    /// Computes the report of `period` ending on `today` from the read models.
    private func report(
        of userId: UUID, period: TrendPeriod, today: CalendarDate, profile: TrendsProfile, logger: Logger
    ) async throws -> TrendsReport {
        let range = period.range(endingOn: today)
        async let days = store.summaries(of: userId, in: range, logger: logger)
        async let best = store.highlights(of: userId, in: range, best: true, limit: Self.highlightCount, logger: logger)
        async let worst = store.highlights(of: userId, in: range, best: false, limit: Self.highlightCount, logger: logger)
        async let metrics = store.bodyMetrics(
            of: userId, in: range.lowerBound.adding(days: -Self.weightWarmUpDays)...range.upperBound, logger: logger)
        return TrendsReport(
            period: period, range: range, summaries: try await days, best: try await best, worst: try await worst,
            bodyMetrics: try await metrics, profile: profile)
    }
}
