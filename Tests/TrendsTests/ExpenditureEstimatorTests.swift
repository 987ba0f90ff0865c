import Foundation
import ServiceDefaults
import Testing

@testable import TrendsService

@Suite("Energy expenditure estimated from the log of synthetic users whose truth is known")
struct ExpenditureEstimatorTests {
    static let today = CalendarDate("2026-05-01")!
    /// A 40-year-old man, 180 cm, lightly active: Mifflin-St Jeor at 80 kg gives 1,730 × 1.375 = 2,378.75 kcal.
    static let bodyData = ExpenditureProfile(heightCm: 180, birthDate: CalendarDate("1986-03-15")!, sex: "male", activityLevel: "light")

    private func estimate(_ user: SyntheticUser, profile: ExpenditureProfile = ExpenditureProfile()) -> ExpenditureEstimate {
        ExpenditureEstimator.estimate(days: user.log(today: Self.today), today: Self.today, profile: profile)
    }

    private func error(_ estimate: ExpenditureEstimate, _ user: SyntheticUser) throws -> Double {
        abs(Double(try #require(estimate.dailyExpenditure)) - user.trueExpenditure)
    }

    private func contains(_ estimate: ExpenditureEstimate, _ kcal: Double) throws -> Bool {
        let range = try #require(estimate.range)
        return Double(range.low) <= kcal && kcal <= Double(range.high)
    }

    private func width(_ estimate: ExpenditureEstimate) throws -> Int {
        let range = try #require(estimate.range)
        return range.high - range.low
    }

    @Test("burning 2,500 and eating 2,000 for 28 days: within 150 kcal, losing about 0.45 kg a week, high confidence")
    func deficit() throws {
        let user = SyntheticUser()
        let log = user.log(today: Self.today)
        let result = ExpenditureEstimator.estimate(days: log, today: Self.today, profile: ExpenditureProfile())
        #expect(result.method == .energyBalance)
        #expect(try error(result, user) <= 150, "\(result)")
        #expect(try contains(result, user.trueExpenditure))
        #expect(result.confidence.level == .high, "\(result.confidence)")
        let trend = try #require(result.weightTrend)
        #expect(abs(trend.changePerWeekKg - user.trueChangePerWeekKg) <= 0.1, "\(trend)")
        #expect(trend.startKg > trend.endKg)
        let meanIntake = log.compactMap(\.intakeCalories).reduce(0, +) / Double(log.count)
        #expect(result.averageIntake == Int(meanIntake.rounded()))
        #expect(result.window == .init(from: CalendarDate("2026-04-03")!, to: CalendarDate("2026-04-30")!, days: 28, loggedDays: 28, weighIns: 28))
        #expect(result.confidence.reasons.contains("28 of 28 days logged"))
    }

    @Test("burning 2,200 and eating 2,700: within 150 kcal and gaining about 0.45 kg a week")
    func surplus() throws {
        let user = SyntheticUser(trueExpenditure: 2_200, meanIntake: 2_700, startWeightKg: 62, seed: 2)
        let result = estimate(user)
        #expect(result.method == .energyBalance)
        #expect(try error(result, user) <= 150, "\(result)")
        #expect(abs(try #require(result.weightTrend).changePerWeekKg - user.trueChangePerWeekKg) <= 0.1)
        #expect(result.confidence.level == .high)
    }

    @Test("eating what they burn: within 150 kcal and a flat trend")
    func maintaining() throws {
        let user = SyntheticUser(trueExpenditure: 2_000, meanIntake: 2_000, startWeightKg: 70, seed: 3)
        let result = estimate(user)
        #expect(try error(result, user) <= 150, "\(result)")
        #expect(abs(try #require(result.weightTrend).changePerWeekKg) <= 0.1)
        #expect(result.suggestedTarget?.basis == .maintain)
    }

    @Test("logging every other day: still close, but less confident than logging every day")
    func halfLogged() throws {
        let full = estimate(SyntheticUser(seed: 4))
        let user = SyntheticUser(logEvery: 2, seed: 4)
        let half = estimate(user)
        #expect(half.method == .energyBalance)
        #expect(try error(half, user) <= 200, "\(half)")
        #expect(half.confidence.score < full.confidence.score)
        #expect(half.confidence.level == .medium, "\(half.confidence)")
        #expect(half.confidence.reasons.contains("14 of 28 days logged"))
        #expect(half.window.loggedDays == 14)
    }

    @Test("weighing in once a week: a wider range and lower confidence than daily")
    func weeklyWeighIns() throws {
        let daily = estimate(SyntheticUser(seed: 5))
        let user = SyntheticUser(weighEvery: 7, seed: 5)
        let weekly = estimate(user)
        #expect(weekly.method == .energyBalance)
        #expect(weekly.window.weighIns == 4)
        #expect(try contains(weekly, user.trueExpenditure), "\(weekly)")
        #expect(try width(weekly) > width(daily))
        #expect(weekly.confidence.score < daily.confidence.score)
        #expect(weekly.confidence.level != .high)
        #expect(weekly.confidence.reasons.contains("4 weigh-ins in 28 days"))
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
        #expect(result.confidence.reasons == ["Weigh-ins span 10 days; 14 are needed", "Add your height and your birth date for an estimate from body data"])
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

    @Test("water swings of ±1.5 kg and intake swings of ±800 kcal: still within 450 kcal, in range, less confident")
    func noisy() throws {
        let clean = estimate(SyntheticUser(seed: 6))
        let user = SyntheticUser(intakeSwingKcal: 800, waterSwingKg: 1.5, seed: 6)
        let noisy = estimate(user)
        #expect(try error(noisy, user) <= 450, "\(noisy)")
        #expect(try contains(noisy, user.trueExpenditure))
        #expect(try width(noisy) > width(clean))
        #expect(noisy.confidence.score < clean.confidence.score)
    }

    @Test("over 100 users the range holds the truth at least 90 times and the errors average out")
    func calibration() throws {
        var hits = 0
        var errors: [Double] = []
        for seed in 100..<200 {
            let user = SyntheticUser(intakeSwingKcal: 500, waterSwingKg: 1, logEvery: seed % 2 + 1, weighEvery: seed % 3 + 1, seed: UInt64(seed))
            let result = estimate(user)
            errors.append(Double(try #require(result.dailyExpenditure)) - user.trueExpenditure)
            if try contains(result, user.trueExpenditure) { hits += 1 }
        }
        #expect(hits >= 90, "\(hits) of 100")
        #expect(abs(errors.reduce(0, +) / 100) <= 30, "\(errors)")
    }

    @Test("days out of order, duplicates split in two, days before the window, today and the future change nothing")
    func orderAndWindow() {
        let clean = SyntheticUser(seed: 7).log(today: Self.today)
        var random = SyntheticUser.SplitMix64(seed: 7)
        let halves = clean.prefix(3).flatMap { day in
            [ExpenditureDay(date: day.date, intakeCalories: day.intakeCalories! / 2, weightKg: day.weightKg),
             ExpenditureDay(date: day.date, intakeCalories: day.intakeCalories! / 2, weightKg: day.weightKg)]
        }
        let outside = (29...60).map { ExpenditureDay(date: Self.today.adding(days: -$0), intakeCalories: 4_000, weightKg: 120) }
            + (0...5).map { ExpenditureDay(date: Self.today.adding(days: $0), intakeCalories: 300, weightKg: 60) }
        let messy = (halves + clean.dropFirst(3) + outside).shuffled(using: &random)
        let profile = ExpenditureProfile(calorieBalanceGoal: -400)
        #expect(
            ExpenditureEstimator.estimate(days: messy, today: Self.today, profile: profile)
                == ExpenditureEstimator.estimate(days: clean, today: Self.today, profile: profile))
    }

    @Test("a user who started 20 days ago gets a 20-day window, and is told 28 would be firmer")
    func shortWindow() throws {
        let user = SyntheticUser(dayCount: 20, seed: 8)
        let result = estimate(user)
        #expect(result.method == .energyBalance)
        #expect(result.window.from == Self.today.adding(days: -20) && result.window.days == 20)
        #expect(try error(result, user) <= 250, "\(result)")
        #expect(result.confidence.reasons.contains("Only 20 days of data; 28 give a firmer estimate"))
    }

    @Test("one weigh-in typed in pounds (187 instead of 85) is set aside and named")
    func mistypedWeighIn() throws {
        let user = SyntheticUser(seed: 9)
        var log = user.log(today: Self.today)
        log[27].weightKg = 187
        let result = ExpenditureEstimator.estimate(days: log, today: Self.today, profile: ExpenditureProfile())
        #expect(try error(result, user) <= 150, "\(result)")
        #expect(result.confidence.reasons.contains("1 weigh-in far from the trend ignored"))
        #expect(result.window.weighIns == 28)
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

    @Test("days logged at well under half the usual intake are pointed out as probably incomplete")
    func partialDays() {
        var log = SyntheticUser(seed: 11).log(today: Self.today)
        for index in [3, 9, 15] { log[index].intakeCalories = 600 }
        let result = ExpenditureEstimator.estimate(days: log, today: Self.today, profile: ExpenditureProfile())
        #expect(result.confidence.reasons.contains("3 logged days under half the usual intake; missed meals make the estimate too low"))
    }

    @Test("the JSON body: camelCase keys, snake_case methods, dates as YYYY-MM-DD, rounded numbers, absent unknowns")
    func json() throws {
        let result = estimate(SyntheticUser(), profile: ExpenditureProfile(calorieBalanceGoal: -500))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: Any])
        #expect(Set(object.keys) == ["method", "dailyExpenditure", "range", "confidence", "window", "averageIntake", "weightTrend", "suggestedTarget"])
        #expect(object["method"] as? String == "energy_balance")
        #expect(object["dailyExpenditure"] as? Int == result.dailyExpenditure)
        let window = try #require(object["window"] as? [String: Any])
        #expect(window["from"] as? String == "2026-04-03" && window["loggedDays"] as? Int == 28)
        let trend = try #require(object["weightTrend"] as? [String: Any])
        let change = try #require(trend["changePerWeekKg"] as? Double)
        #expect(change == (change * 100).rounded() / 100)
        let target = try #require(object["suggestedTarget"] as? [String: Any])
        #expect(target["basis"] as? String == "deficit" && target["safetyFloorApplied"] as? Bool == false)
        #expect((object["confidence"] as? [String: Any])?["level"] as? String == "high")

        let insufficient = estimate(SyntheticUser(dayCount: 5))
        let sparse = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(insufficient)) as? [String: Any])
        #expect(sparse["method"] as? String == "insufficient_data")
        #expect(Set(sparse.keys) == ["method", "confidence", "window", "averageIntake"])
    }

    @Test("the suggested target follows the balance goal through the estimator")
    func targetThroughEstimator() throws {
        let result = estimate(SyntheticUser(), profile: ExpenditureProfile(calorieBalanceGoal: -500))
        let target = try #require(result.suggestedTarget)
        #expect(target.calories == (try #require(result.dailyExpenditure)) - 500)
        #expect(target.basis == .deficit)
    }
}

extension ExpenditureEstimatorTests {
    @Suite("Suggested calorie targets for each goal, never below the safety floor")
    struct CalorieTargets {
        private func target(_ profile: ExpenditureProfile, expenditure: Int = 2_500, weightKg: Double? = 80) -> ExpenditureEstimate.Target {
            CalorieTargetPlanner.suggest(expenditure: expenditure, currentWeightKg: weightKg, profile: profile)
        }

        @Test("a 500 kcal deficit goal: expenditure minus 500")
        func deficit() {
            let result = target(ExpenditureProfile(calorieBalanceGoal: -500))
            #expect(result == .init(calories: 2_000, basis: .deficit, explanation: "About 2500 kcal burned a day minus your 500 kcal deficit goal.", safetyFloorApplied: false))
        }

        @Test("a 300 kcal surplus goal: expenditure plus 300")
        func surplus() {
            let result = target(ExpenditureProfile(calorieBalanceGoal: 300))
            #expect(result.calories == 2_800 && result.basis == .surplus)
        }

        @Test("target weight 10 kg below: 550 kcal under expenditure, to lose 0.5 kg a week")
        func targetBelow() {
            let result = target(ExpenditureProfile(targetWeightKg: 70))
            #expect(result.calories == 1_950 && result.basis == .towardTargetWeight)
            #expect(result.explanation == "550 kcal below the 2500 kcal you burn, to lose about 0.5 kg a week toward 70 kg.")
        }

        @Test("target weight 5 kg above: 275 kcal over expenditure, to gain 0.25 kg a week")
        func targetAbove() {
            let result = target(ExpenditureProfile(targetWeightKg: 72.5), weightKg: 67.5)
            #expect(result.calories == 2_775 && result.basis == .towardTargetWeight)
            #expect(result.explanation.contains("gain about 0.25 kg a week toward 72.5 kg"))
        }

        @Test("within 1 kg of the target weight, either side: maintain")
        func targetWithinTolerance() {
            #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: 70.9).calories == 2_500)
            #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: 69.1).basis == .maintain)
            #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: 71.1).basis == .towardTargetWeight)
        }

        @Test("a target weight without any weigh-in falls through to maintain")
        func targetWithoutWeight() {
            #expect(target(ExpenditureProfile(targetWeightKg: 70), weightKg: nil) == target(ExpenditureProfile(), weightKg: nil))
        }

        @Test("the balance goal wins over the target weight, which wins over the daily goal")
        func precedence() {
            #expect(target(ExpenditureProfile(dailyCalorieGoal: 1_800, calorieBalanceGoal: -250, targetWeightKg: 70)).calories == 2_250)
            #expect(target(ExpenditureProfile(dailyCalorieGoal: 1_800, targetWeightKg: 70)).calories == 1_950)
        }

        @Test("the user's own daily goal is kept and compared with expenditure")
        func ownDailyGoal() {
            let result = target(ExpenditureProfile(dailyCalorieGoal: 1_800))
            #expect(result == .init(calories: 1_800, basis: .deficit, explanation: "Your own goal of 1800 kcal, 700 kcal below the 2500 kcal you burn.", safetyFloorApplied: false))
            #expect(target(ExpenditureProfile(dailyCalorieGoal: 2_550)).basis == .maintain)
        }

        @Test("no goal: maintain at expenditure")
        func noGoal() {
            #expect(target(ExpenditureProfile()).calories == 2_500)
            #expect(target(ExpenditureProfile()).basis == .maintain)
        }

        @Test("a woman burning 1,600 with a 700 kcal deficit goal is held at 1,200 and told why")
        func femaleFloor() {
            let result = target(ExpenditureProfile(calorieBalanceGoal: -700, sex: "female"), expenditure: 1_600)
            #expect(result.calories == 1_200 && result.safetyFloorApplied && result.basis == .deficit)
            #expect(result.explanation == "Raised to the safety floor of 1200 kcal, the least advised without medical supervision (the goal alone would give 900 kcal).")
        }

        @Test("men and users of unknown sex are held at 1,500; a target just above the floor is untouched")
        func otherFloor() {
            #expect(target(ExpenditureProfile(calorieBalanceGoal: -500, sex: "male"), expenditure: 1_800).calories == 1_500)
            #expect(target(ExpenditureProfile(dailyCalorieGoal: 1_000), expenditure: 1_800).calories == 1_500)
            #expect(!target(ExpenditureProfile(calorieBalanceGoal: -500), expenditure: 2_000).safetyFloorApplied)
        }
    }

    @Suite("Mifflin-St Jeor fallback")
    struct Formula {
        @Test("unknown sex uses the mean constant (-78) and a missing activity level means sedentary, both said")
        func assumptions() throws {
            let profile = ExpenditureProfile(heightCm: 165, birthDate: CalendarDate("1996-05-01")!)
            let formula = try MifflinStJeorFormula(profile: profile, weightKg: 60, today: ExpenditureEstimatorTests.today)
            // (600 + 1031.25 - 150 - 78) × 1.2, at 30 years old
            #expect(abs(formula.dailyKcal - 1_683.9) < 1e-9)
            #expect(formula.reasons.contains("Sex not given: the mean of the female and male formulas is used"))
            #expect(formula.reasons.contains("Activity level not set: sedentary assumed"))
        }

        @Test("age counts whole years: the day before the birthday is a year younger")
        func age() {
            let born = CalendarDate("1986-05-02")!
            #expect(MifflinStJeorFormula.age(born: born, on: CalendarDate("2026-05-01")!) == 39)
            #expect(MifflinStJeorFormula.age(born: born, on: CalendarDate("2026-05-02")!) == 40)
        }

        @Test("not used under 18")
        func minors() {
            let profile = ExpenditureProfile(heightCm: 170, birthDate: CalendarDate("2010-01-01")!, sex: "female")
            #expect(throws: MifflinStJeorFormula.Unavailable.self) {
                try MifflinStJeorFormula(profile: profile, weightKg: 60, today: ExpenditureEstimatorTests.today)
            }
        }

        @Test("the t quantile behind the range matches the table within the documented error")
        func studentT() {
            #expect(abs(EnergyBalanceEstimate.studentT975(degreesOfFreedom: 2) - 4.303) < 0.15)
            #expect(abs(EnergyBalanceEstimate.studentT975(degreesOfFreedom: 5) - 2.571) < 0.01)
            #expect(abs(EnergyBalanceEstimate.studentT975(degreesOfFreedom: 26) - 2.056) < 0.01)
        }
    }

    @Suite("Gap-aware weight trend smoother")
    struct Smoother {
        private let start = CalendarDate("2026-01-01")!

        @Test("one weigh-in: the trend is that weigh-in")
        func singlePoint() throws {
            let result = WeightTrendSmoother.smooth([(start, 81.3)])
            #expect(result.count == 1)
            #expect(try #require(result.first).trendKg == 81.3)
            #expect(WeightTrendSmoother.smooth([]).isEmpty)
        }

        @Test("a constant weight stays exactly constant, gaps or not")
        func constant() {
            let weighIns = [0, 1, 2, 9, 10, 40].map { (date: start.adding(days: $0), kg: 72.4) }
            #expect(WeightTrendSmoother.smooth(weighIns).allSatisfy { $0.trendKg == 72.4 })
        }

        @Test("a day moves the trend 10% of the way; a 10-day gap 1 - 0.9^10 = 65%")
        func gaps() throws {
            let nextDay = WeightTrendSmoother.smooth([(start, 80), (start.adding(days: 1), 79)])
            #expect(abs(try #require(nextDay.last).trendKg - 79.9) < 1e-9)
            let afterGap = WeightTrendSmoother.smooth([(start, 80), (start.adding(days: 10), 70)])
            #expect(abs(try #require(afterGap.last).trendKg - (80 - 10 * (1 - pow(0.9, 10)))) < 1e-9)
        }

        @Test("after a 2 kg step: half of it after 7 daily weigh-ins (not 6), 90% after 22 (not 21)")
        func stepLag() {
            let before = (0..<30).map { (date: start.adding(days: $0), kg: 80.0) }
            let after = (30..<60).map { (date: start.adding(days: $0), kg: 82.0) }
            let trend = WeightTrendSmoother.smooth(before + after).map { $0.trendKg - 80 }
            // trend[29 + k] is the trend after k weigh-ins at the new level.
            #expect(trend[29 + 6] < 1 && trend[29 + 7] >= 1)
            #expect(trend[29 + 21] < 1.8 && trend[29 + 22] >= 1.8)
        }

        @Test("weigh-ins in any order come out by date; two on one day count as their mean; invalid ones are dropped")
        func orderAndDuplicates() {
            let result = WeightTrendSmoother.smooth([
                (start.adding(days: 2), 79), (start, 80), (start, 81), (start.adding(days: 1), .nan), (start.adding(days: 1), 0),
            ])
            #expect(result.map(\.date) == [start, start.adding(days: 2)])
            #expect(result.map(\.kg) == [80.5, 79])
            #expect(abs(result[1].trendKg - (80.5 - 1.5 * 0.19)) < 1e-9)
        }
    }
}
