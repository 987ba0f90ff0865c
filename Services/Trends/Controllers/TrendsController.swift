import Foundation
import Hummingbird
import ServiceDefaults

/// `GET /api/trends?period=7d|30d|90d`.
struct TrendsController: Sendable {
    let profiles: ProfileReader
    let summaries: DaySummaryReader
    let meals: MealReader
    let bodyMetrics: BodyMetricsReader
    let now: @Sendable () -> Date

    /// Weigh-ins this many days before a period warm the weight trend up.
    static let weightWarmUpDays = 60
    /// How many best and worst meals a report lists.
    static let highlightCount = 3

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/trends", use: trends)
    }

    @Sendable func trends(request: Request, context: AppRequestContext) async throws -> TrendsReport {
        let caller = try CallerIdentity(request)
        let profile = try await profiles.profile(of: caller.userId, logger: context.logger)
        var reader = TrendsQueryReader(request, today: profile.today(now: now()))
        let period = reader.period()
        try reader.check()
        let range = period.range(endingOn: reader.today)
        async let days = summaries.summaries(of: caller.userId, in: range, logger: context.logger)
        async let best = meals.highlights(of: caller.userId, in: range, best: true, limit: Self.highlightCount, logger: context.logger)
        async let worst = meals.highlights(of: caller.userId, in: range, best: false, limit: Self.highlightCount, logger: context.logger)
        async let metrics = bodyMetrics.days(
            of: caller.userId, in: range.lowerBound.adding(days: -Self.weightWarmUpDays)...range.upperBound, logger: context.logger)
        return TrendsReport(
            period: period, range: range, summaries: try await days, best: try await best, worst: try await worst,
            bodyMetrics: try await metrics, profile: profile)
    }
}
