import BackendKit
import Foundation
import Hummingbird
import ServiceDefaults

/// The dashboard routes: stats, progress, a day's history, the calendar, summaries of any range and achievements. Days are the
/// user's local days; "today" is today in the zone of their current profile. Stats, progress, the calendar and
/// achievements are served from the user's ready reports while their data is unchanged.
struct DashboardController: Sendable {
    let reports: ReadyReports
    let store: any TrendsStore
    /// Signs the history's thumbnail URLs; nil when trends has no photo URL key.
    let photos: PhotoURLSigner?
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/user/stats", use: stats)
        router.get("/api/progress", use: progress)
        router.get("/api/history/:date", use: history)
        router.get("/api/calendar", use: calendar)
        router.get("/api/summaries", use: summariesOfRange)
        router.get("/api/achievements", use: achievements)
    }

    /// `GET /api/user/stats`: today, this week and all time.
    @Sendable func stats(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        let today = state.profile.today(now: now())
        let spans = UserStatsReport.spans(today: today, weekStart: state.profile.weekStart)
        return try await reports.answer("stats/\(today)", of: state, encoder: context.responseEncoder, logger: context.logger) {
            async let totals = store.totals(of: caller.userId, over: [spans.today, spans.week, spans.allTime], logger: context.logger)
            async let logged = store.loggedDays(of: caller.userId, logger: context.logger)
            return UserStatsReport(today: today, weekStart: state.profile.weekStart, totals: try await totals, loggedDays: try await logged)
        }
    }

    /// `GET /api/progress?days=7` (1-90): every day with its meal count, calories, goal status and health rating.
    @Sendable func progress(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        var reader = TrendsQueryReader(request, today: state.profile.today(now: now()), now: now())
        let range = reader.lastDays(fallback: 7, limits: 1...90)
        try reader.check()
        return try await reports.answer(
            "progress/\(range.lowerBound)/\(range.upperBound)", of: state, encoder: context.responseEncoder, logger: context.logger
        ) {
            let days = try await store.summaries(of: caller.userId, in: range, logger: context.logger)
            return DaysReport(range: range, summaries: days, goals: state.profile.goals)
        }
    }

    /// `GET /api/calendar?month=YYYY-MM`: each day of the month up to today (and any later day with an entry) with its goal
    /// status.
    @Sendable func calendar(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        var reader = TrendsQueryReader(request, today: state.profile.today(now: now()), now: now())
        let range = reader.month()
        try reader.check()
        let today = reader.today
        return try await reports.answer(
            "calendar/\(range.lowerBound)/\(range.upperBound)/\(today)", of: state, encoder: context.responseEncoder, logger: context.logger
        ) {
            let days = try await store.summaries(of: caller.userId, in: range, logger: context.logger)
            return DaysReport(range: range.shown(today: today, summaries: days), summaries: days, goals: state.profile.goals)
        }
    }

    /// `GET /api/summaries?from=YYYY-MM-DD&to=YYYY-MM-DD` (at most 366 days, cut after today unless later days have
    /// entries): each day's totals, goal status and health rating, with the averages, macro split and goal achievement
    /// over the range.
    @Sendable func summariesOfRange(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        var reader = TrendsQueryReader(request, today: state.profile.today(now: now()), now: now())
        let range = reader.dateRange(maximumDays: SummariesReport.maximumDays)
        try reader.check()
        let today = reader.today
        return try await reports.answer(
            "summaries/\(range.lowerBound)/\(range.upperBound)/\(today)", of: state, encoder: context.responseEncoder, logger: context.logger
        ) {
            let days = try await store.summaries(of: caller.userId, in: range, logger: context.logger)
            return SummariesReport(range: range.shown(today: today, summaries: days), summaries: days, goals: state.profile.goals)
        }
    }

    /// `GET /api/history/:date`: the day's summary and meals; 422 for a path that is not a date, as everywhere.
    @Sendable func history(request: Request, context: AppRequestContext) async throws -> DayHistory {
        let caller = try CallerIdentity(request)
        let date = try context.parameters.calendarDate("date")
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        // The summary and the meals are read side by side: read again if an event landed between them.
        return try await reports.consistently(state, logger: context.logger) {
            async let days = store.summaries(of: caller.userId, in: date...date, logger: context.logger)
            async let dayMeals = store.meals(of: caller.userId, on: date, logger: context.logger)
            let summary = try await days.first ?? .empty(date)
            return DayHistory(
                date: date, summary: DayReport(summary, goals: state.profile.goals),
                meals: try await dayMeals.map { DayHistory.Meal($0, photos: photos) })
        }.value
    }

    /// `GET /api/achievements`: streak milestones at 7, 21, 35, 50, 100 and 365 days, locked and unlocked.
    @Sendable func achievements(request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try CallerIdentity(request)
        let state = try await reports.state(of: caller.userId, logger: context.logger)
        let today = state.profile.today(now: now())
        return try await reports.answer("achievements/\(today)", of: state, encoder: context.responseEncoder, logger: context.logger) {
            let loggedDays = try await store.loggedDays(of: caller.userId, logger: context.logger)
            return AchievementsReport(Streaks(loggedDays: loggedDays, today: today))
        }
    }
}
