import Foundation

/// `user.profile_updated`: the full current profile, so consumers never need to ask the auth service.
public struct UserProfileUpdated: EventPayload {
    public static let topic = Topic.userProfileUpdated
    public static let schemaVersion = 1

    public var userId: UUID
    public var displayName: String
    public var dietPreference: String
    /// Custom macro split in percent of energy (protein, carbs, fat); only for the `custom` diet.
    public var customMacros: MacroSplit?
    public var dailyCalorieGoal: Int?
    public var proteinGoalGrams: Int?
    public var carbsGoalGrams: Int?
    public var fatGoalGrams: Int?
    /// Negative for a deficit, positive for a surplus, in kcal per day.
    public var calorieBalanceGoal: Int?
    public var targetWeightKg: Double?
    public var weightUnit: String
    /// IANA time zone name used to turn timestamps into the user's calendar dates.
    public var timeZone: String
    /// Optional body data for energy estimates.
    public var heightCm: Double?
    /// `YYYY-MM-DD`.
    public var birthDate: String?
    /// female, male, other or unspecified.
    public var sex: String?
    /// sedentary, light, moderate, active or very_active.
    public var activityLevel: String?
    /// How many days of meals and body metrics the user keeps (the owning services purge older ones); absent:
    /// everything is kept.
    public var historyRetentionDays: Int?
    /// How many days meal photos are kept (the meals service removes older ones, the meals stay); absent: photos are
    /// kept.
    public var deletePhotosAfterDays: Int?
    /// How much the user means to drink a day, in millilitres; absent: no water goal.
    public var dailyWaterGoalMillilitres: Int?
    /// The first day of the user's calendar week (`monday` ... `sunday`); absent: monday (events published before
    /// the setting existed).
    public var weekStart: String?
    /// The user's calendar date (`YYYY-MM-DD`, in `timeZone`) from which the goals in this event (calories, macros,
    /// balance) are in force: the day they were last changed. Days before it were judged by the goals before. Absent
    /// from events published before goal history existed.
    public var goalsEffectiveFrom: String?
    /// Increases with every change, so consumers can ignore stale copies.
    public var version: Int

    public init(
        userId: UUID, displayName: String, dietPreference: String, customMacros: MacroSplit? = nil,
        dailyCalorieGoal: Int? = nil, proteinGoalGrams: Int? = nil, carbsGoalGrams: Int? = nil, fatGoalGrams: Int? = nil,
        calorieBalanceGoal: Int? = nil, targetWeightKg: Double? = nil, weightUnit: String = "kg", timeZone: String = "UTC",
        historyRetentionDays: Int? = nil, version: Int
    ) {
        self.userId = userId
        self.displayName = displayName
        self.dietPreference = dietPreference
        self.customMacros = customMacros
        self.dailyCalorieGoal = dailyCalorieGoal
        self.proteinGoalGrams = proteinGoalGrams
        self.carbsGoalGrams = carbsGoalGrams
        self.fatGoalGrams = fatGoalGrams
        self.calorieBalanceGoal = calorieBalanceGoal
        self.targetWeightKg = targetWeightKg
        self.weightUnit = weightUnit
        self.timeZone = timeZone
        self.historyRetentionDays = historyRetentionDays
        self.version = version
    }
}

/// A split of energy between the three macronutrients, in percent (sums to 100).
public struct MacroSplit: Codable, Sendable, Equatable {
    public var proteinPercent: Double
    public var carbsPercent: Double
    public var fatPercent: Double

    public init(proteinPercent: Double, carbsPercent: Double, fatPercent: Double) {
        self.proteinPercent = proteinPercent
        self.carbsPercent = carbsPercent
        self.fatPercent = fatPercent
    }
}

/// `user.deleted`: every service purges everything it holds about the user.
public struct UserDeleted: EventPayload {
    public static let topic = Topic.userDeleted
    public static let schemaVersion = 1

    public var userId: UUID
    public var deletedAt: Date

    public init(userId: UUID, deletedAt: Date) {
        self.userId = userId
        self.deletedAt = deletedAt
    }
}
