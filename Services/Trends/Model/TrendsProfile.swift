import Foundation
import ServiceDefaults

/// What the trends service knows of a user from `user.profile_updated`. Before the first profile event:
/// UTC, kilograms and no goals.
struct TrendsProfile: Sendable, Equatable {
    var timeZone: TimeZone
    var weightUnit: String
    var dailyCalorieGoal: Int?
    var calorieBalanceGoal: Int?
    var targetWeightKg: Double?
    var heightCm: Double?
    var birthDate: CalendarDate?
    var sex: String?
    var activityLevel: String?
    /// Millilitres a day; nil: no water goal.
    var dailyWaterGoalMillilitres: Int?
    /// The first day of the user's calendar week (stats' `week`).
    var weekStart: Weekday = .monday
    /// The daily calorie goal period by period, which past days are judged by (`dailyCalorieGoal` is today's).
    var goals: GoalHistory = .none

    static let standard = TrendsProfile(timeZone: TimeZone(identifier: "UTC")!, weightUnit: "kg")

    init(
        timeZone: TimeZone, weightUnit: String, dailyCalorieGoal: Int? = nil, calorieBalanceGoal: Int? = nil,
        targetWeightKg: Double? = nil, heightCm: Double? = nil, birthDate: CalendarDate? = nil, sex: String? = nil,
        activityLevel: String? = nil
    ) {
        self.timeZone = timeZone
        self.weightUnit = weightUnit
        self.dailyCalorieGoal = dailyCalorieGoal
        self.calorieBalanceGoal = calorieBalanceGoal
        self.targetWeightKg = targetWeightKg
        self.heightCm = heightCm
        self.birthDate = birthDate
        self.sex = sex
        self.activityLevel = activityLevel
    }

    /// The user's today: days are the user's local days in their current zone.
    func today(now: Date) -> CalendarDate { CalendarDate(now, in: timeZone) }

    /// A weight in kilograms shown in the user's unit, rounded to hundredths.
    func displayWeight(_ kilograms: Double) -> Double {
        let value = weightUnit == "lbs" ? kilograms / 0.45359237 : kilograms
        return (value * 100).rounded() / 100
    }
}
