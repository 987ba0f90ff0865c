import EventContracts
import Foundation
import ServiceDefaults
import SyncContracts

/// A user's profile and goals, as stored. Weights are kept in kilograms whatever the display unit.
struct Profile: Sendable, Equatable {
    static let diets: Set<String> = ["keto", "paleo", "vegan", "vegetarian", "mediterranean", "low_carb", "balanced", "custom"]
    static let sexes: Set<String> = ["female", "male", "other", "unspecified"]
    static let activityLevels: Set<String> = ["sedentary", "light", "moderate", "active", "very_active"]
    static let kilogramsPerPound = 0.45359237
    /// The values `historyRetentionDays` may take (null aside): a day to a hundred years.
    static let historyRetentionDays = 1...36_500
    /// The values `deletePhotosAfterDays` may take (null aside): a day to ten years.
    static let deletePhotosAfterDays = 1...3_650
    /// The values `dailyWaterGoalMillilitres` may take (null aside): a glass to ten litres.
    static let dailyWaterGoalMillilitres = 250...10_000

    var userId: UUID
    var displayName: String
    var dietPreference: String = "balanced"
    var customMacros: MacroSplit?
    var dailyCalorieGoal: Int?
    var proteinGoalGrams: Int?
    var carbsGoalGrams: Int?
    var fatGoalGrams: Int?
    /// Negative: a daily deficit; positive: a surplus (kcal).
    var calorieBalanceGoal: Int?
    var targetWeightKg: Double?
    var weightUnit: String = "kg"
    var timeZone: String = "UTC"
    var heightCm: Double?
    /// `YYYY-MM-DD`.
    var birthDate: String?
    var sex: String?
    var activityLevel: String?
    /// How many days of history meals and metrics keep; nil keeps everything.
    var historyRetentionDays: Int?
    /// How many days meal photos are kept (the meals service removes older ones); nil keeps them.
    var deletePhotosAfterDays: Int?
    /// How much the user means to drink a day, in millilitres; nil: no water goal.
    var dailyWaterGoalMillilitres: Int?
    /// The first day of the user's calendar week (stats' `week`).
    var weekStart: Weekday = .monday
    var version: Int = 1
    var updatedAt: Date
    /// The user's change number of the profile's last write (the changes feed's order); 0 before it is stored.
    var changeSeq: Int64 = 0
    /// When the last write was made, for last-write-wins; nil before it is stored.
    var writeStamp: WriteStamp?
    /// The user's date (`YYYY-MM-DD`, in their zone) from which the current goals are in force: the day they were set
    /// (`revision(of:at:)`), or the day the account was made.
    var goalsEffectiveFrom: String = "2000-01-01"

    /// The goals a day is judged by; a change of any of them starts a new period of the goal history.
    var goals: [Double?] {
        [dailyCalorieGoal, proteinGoalGrams, carbsGoalGrams, fatGoalGrams, calorieBalanceGoal].map { $0.map(Double.init) }
    }

    /// The user's calendar date of `instant` in the profile's zone (UTC when the zone is unknown).
    func localDate(of instant: Date) -> String {
        CalendarDate(instant, in: TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!).description
    }

    /// The event every consumer keeps a copy of.
    var event: UserProfileUpdated {
        var event = UserProfileUpdated(
            userId: userId, displayName: displayName, dietPreference: dietPreference, customMacros: customMacros,
            dailyCalorieGoal: dailyCalorieGoal, proteinGoalGrams: proteinGoalGrams, carbsGoalGrams: carbsGoalGrams,
            fatGoalGrams: fatGoalGrams, calorieBalanceGoal: calorieBalanceGoal, targetWeightKg: targetWeightKg,
            weightUnit: weightUnit, timeZone: timeZone, version: version)
        event.heightCm = heightCm
        event.birthDate = birthDate
        event.sex = sex
        event.activityLevel = activityLevel
        event.historyRetentionDays = historyRetentionDays
        event.deletePhotosAfterDays = deletePhotosAfterDays
        event.dailyWaterGoalMillilitres = dailyWaterGoalMillilitres
        event.weekStart = weekStart.rawValue
        event.goalsEffectiveFrom = goalsEffectiveFrom
        return event
    }
}
