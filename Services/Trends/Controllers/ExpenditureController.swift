import Foundation
import Hummingbird
import ServiceDefaults

/// `GET /api/trends/expenditure`: the user's daily energy expenditure estimated from their own log (see
/// `ExpenditureEstimator` and docs/EXPENDITURE.md) and a calorie target for their goal.
struct ExpenditureController: Sendable {
    let store: any TrendsStore
    let now: @Sendable () -> Date

    /// How far back weigh-ins are read: the window's 28 days plus older ones for the formula's latest weight.
    static let weightHistoryDays = 90

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/trends/expenditure", use: expenditure)
    }

    @Sendable func expenditure(request: Request, context: AppRequestContext) async throws -> ExpenditureEstimate {
        let caller = try CallerIdentity(request)
        let profile = try await store.profile(of: caller.userId, logger: context.logger)
        let today = profile.today(now: now())
        async let logged = store.summaries(
            of: caller.userId, in: today.adding(days: -EstimationWindow.maximumDays)...today, logger: context.logger)
        async let weighed = store.bodyMetrics(
            of: caller.userId, in: today.adding(days: -Self.weightHistoryDays)...today, logger: context.logger)
        var days: [CalendarDate: ExpenditureDay] = [:]
        for day in try await logged where day.isLogged {
            days[day.date] = ExpenditureDay(date: day.date, intakeCalories: day.calories, weightKg: nil)
        }
        for day in try await weighed {
            guard let kilograms = day.weightKg else { continue }
            days[day.date, default: ExpenditureDay(date: day.date, intakeCalories: nil, weightKg: nil)].weightKg = kilograms
        }
        return ExpenditureEstimator.estimate(
            days: Array(days.values), today: today,
            profile: ExpenditureProfile(
                dailyCalorieGoal: profile.dailyCalorieGoal, calorieBalanceGoal: profile.calorieBalanceGoal,
                targetWeightKg: profile.targetWeightKg, heightCm: profile.heightCm, birthDate: profile.birthDate, sex: profile.sex,
                activityLevel: profile.activityLevel))
    }
}
