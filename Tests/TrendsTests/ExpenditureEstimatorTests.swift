import Foundation
import ServiceDefaults
import TestSupport
import Testing

@testable import TrendsService

/// `ExpenditureEstimator` against synthetic users whose true expenditure is known: accuracy, confidence, input handling, JSON.
@Suite("Energy expenditure estimated from the log of synthetic users whose truth is known")
struct ExpenditureEstimatorTests {
    /// The day the synthetic logs end before; the other estimator suites use it too.
    static let today = CalendarDate("2026-05-01")!

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

    @Test(
        "days out of order, duplicates split in two, days before the window, today and the future change nothing",
        arguments: TestSeeds.list(default: [7, 8, 9]))
    func orderAndWindow(seed: UInt64) {
        let clean = SyntheticUser(seed: seed).log(today: Self.today)
        var random = SplitMix64(seed: seed)
        let halves = clean.prefix(3).flatMap { day in
            [
                ExpenditureDay(date: day.date, intakeCalories: day.intakeCalories! / 2, weightKg: day.weightKg),
                ExpenditureDay(date: day.date, intakeCalories: day.intakeCalories! / 2, weightKg: day.weightKg),
            ]
        }
        let outside =
            (29...60).map { ExpenditureDay(date: Self.today.adding(days: -$0), intakeCalories: 4_000, weightKg: 120) }
            + (0...5).map { ExpenditureDay(date: Self.today.adding(days: $0), intakeCalories: 300, weightKg: 60) }
        let messy = (halves + clean.dropFirst(3) + outside).shuffled(using: &random)
        let profile = ExpenditureProfile(calorieBalanceGoal: -400)
        #expect(
            ExpenditureEstimator.estimate(days: messy, today: Self.today, profile: profile)
                == ExpenditureEstimator.estimate(days: clean, today: Self.today, profile: profile), "seed \(seed)")
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
        #expect(
            Set(object.keys) == ["method", "dailyExpenditure", "range", "confidence", "window", "averageIntake", "weightTrend", "suggestedTarget"])
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
