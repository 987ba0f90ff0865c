import ServiceDefaults
import TestSupport

@testable import TrendsService

/// A simulated user whose true expenditure is known, to test the estimator against the truth.
///
/// Each day the user eats `meanIntake` ± `intakeSwingKcal` (uniform) and burns exactly `trueExpenditure`; the
/// difference moves their true weight by 1 kg per 7,700 kcal overnight. A weigh-in reads the morning's true
/// weight ± `waterSwingKg` (uniform, independent from day to day). Every value comes from a seeded generator,
/// so a user is the same on every run and machine.
struct SyntheticUser {
    var trueExpenditure = 2_500.0
    var meanIntake = 2_000.0
    var intakeSwingKcal = 300.0
    var startWeightKg = 85.0
    var waterSwingKg = 0.5
    /// Days of history, ending yesterday.
    var dayCount = 28
    /// Intake is logged on every `logEvery`-th day (1: every day, 2: every other day).
    var logEvery = 1
    /// A weigh-in on every `weighEvery`-th day (1: daily, 7: weekly).
    var weighEvery = 1
    var seed: UInt64 = 1

    /// The true change of weight per week, kg.
    var trueChangePerWeekKg: Double { (meanIntake - trueExpenditure) * 7 / 7_700 }

    /// The user's log for the `dayCount` days before `today`, oldest first.
    func log(today: CalendarDate) -> [ExpenditureDay] {
        var random = SplitMix64(seed: seed)
        var weight = startWeightKg
        var days: [ExpenditureDay] = []
        for index in 0..<dayCount {
            let intake = meanIntake + random.uniform(in: -intakeSwingKcal...intakeSwingKcal)
            let reading = weight + random.uniform(in: -waterSwingKg...waterSwingKg)
            days.append(
                ExpenditureDay(
                    date: today.adding(days: index - dayCount),
                    intakeCalories: index % logEvery == 0 ? intake : nil,
                    weightKg: index % weighEvery == 0 ? reading : nil))
            weight += (intake - trueExpenditure) / 7_700
        }
        return days
    }
}
