import ServiceDefaults
import Testing

@testable import TrendsService

/// `ExpenditureEstimator` when the energy balance cannot be trusted: the Mifflin-St Jeor formula, or no estimate.
@Suite("Too little data, or a log that cannot be true: the formula from body data, or nothing, saying why")
struct ExpenditureFallbackTests {
    static let today = ExpenditureEstimatorTests.today
    /// A 40-year-old man, 180 cm, lightly active: Mifflin-St Jeor at 80 kg gives 1,730 × 1.375 = 2,378.75 kcal.
    static let bodyData = ExpenditureProfile(heightCm: 180, birthDate: CalendarDate("1986-03-15")!, sex: "male", activityLevel: "light")

    private func estimate(_ user: SyntheticUser, profile: ExpenditureProfile = ExpenditureProfile()) -> ExpenditureEstimate {
        ExpenditureEstimator.estimate(days: user.log(today: Self.today), today: Self.today, profile: profile)
    }

    @Test("only 10 days of data: Mifflin-St Jeor from body data, exactly")
    func tenDaysWithBodyData() throws {
        let user = SyntheticUser(trueExpenditure: 2_000, meanIntake: 2_000, intakeSwingKcal: 0, startWeightKg: 80, waterSwingKg: 0, dayCount: 10)
        let result = estimate(user, profile: Self.bodyData)
        #expect(result.method == .formula)
        #expect(result.dailyExpenditure == 2_379)
        #expect(result.range == .init(low: 2_022, high: 2_736))
        #expect(result.confidence.level == .low)
        #expect(result.confidence.reasons.first == "Weigh-ins span 10 days; 14 are needed")
        #expect(result.window.days == 10)
        #expect(result.averageIntake == 2_000)
        #expect(result.suggestedTarget?.calories == 2_379)
    }

    @Test("only 10 days of data and no body data: insufficient, saying what is missing")
    func tenDaysWithoutBodyData() {
        let result = estimate(SyntheticUser(dayCount: 10))
        #expect(result.method == .insufficientData)
        #expect(result.dailyExpenditure == nil && result.range == nil && result.suggestedTarget == nil)
        #expect(result.confidence.level == .low && result.confidence.score == 0)
        #expect(
            result.confidence.reasons == [
                "Weigh-ins span 10 days; 14 are needed", "Add your height and your birth date for an estimate from body data",
            ])
    }

    @Test("a new user with a profile and only today's weigh-in gets the formula; without a weigh-in, nothing")
    func firstDay() {
        let weighedToday = [ExpenditureDay(date: Self.today, intakeCalories: nil, weightKg: 80)]
        let formula = ExpenditureEstimator.estimate(days: weighedToday, today: Self.today, profile: Self.bodyData)
        #expect(formula.method == .formula && formula.dailyExpenditure == 2_379)
        #expect(formula.window.weighIns == 0)
        let nothing = ExpenditureEstimator.estimate(days: [], today: Self.today, profile: Self.bodyData)
        #expect(nothing.method == .insufficientData)
        #expect(nothing.confidence.reasons == ["0 weigh-ins in the last 28 days; 4 are needed", "Add a weigh-in for an estimate from body data"])
    }

    @Test("logging only snacks implies an impossible 800 kcal a day: the formula is used instead, and says why")
    func implausibleLog() throws {
        let user = SyntheticUser(trueExpenditure: 2_400, meanIntake: 2_400, seed: 10)
        let snacksOnly = user.log(today: Self.today).map { day in
            ExpenditureDay(date: day.date, intakeCalories: day.intakeCalories.map { $0 / 3 }, weightKg: day.weightKg)
        }
        let result = ExpenditureEstimator.estimate(days: snacksOnly, today: Self.today, profile: Self.bodyData)
        #expect(result.method == .formula)
        let reason = try #require(result.confidence.reasons.first)
        #expect(reason.hasPrefix("The log implies 8") && reason.contains("outside the plausible 1000-6000"), "\(reason)")
    }
}
