import EventContracts
import Foundation
import Hummingbird
import SyncContracts

/// The account as shown to its owner.
struct UserBody: ResponseCodable, Equatable {
    var id: UUID
    var email: String
    var displayName: String
    var createdAt: Date
}

/// Profile and goals as shown to their owner; `targetWeight` is in `weightUnit`.
struct ProfileBody: ResponseCodable, Equatable {
    var displayName: String
    var dietPreference: String
    var customMacros: MacroSplit?
    var dailyCalorieGoal: Int?
    var proteinGoalGrams: Int?
    var carbsGoalGrams: Int?
    var fatGoalGrams: Int?
    var calorieBalanceGoal: Int?
    var targetWeight: Double?
    var weightUnit: String
    var timeZone: String
    var heightCm: Double?
    var birthDate: String?
    var sex: String?
    var activityLevel: String?
    /// Days of history kept; absent: everything.
    var historyRetentionDays: Int?
    /// Days a meal photo is kept; absent: photos are kept.
    var deletePhotosAfterDays: Int?
    /// Millilitres a day; absent: no water goal.
    var dailyWaterGoalMillilitres: Int?
    /// The first day of the user's calendar week.
    var weekStart: Weekday
    var version: Int
    var updatedAt: Date
    /// `stale_write_ignored` on the answer to a write that lost to a newer one (last-write-wins); absent otherwise.
    var conflict: String?

    init(_ profile: Profile, conflict: SyncConflictResolution? = nil) {
        self.conflict = conflict?.rawValue
        displayName = profile.displayName
        dietPreference = profile.dietPreference
        customMacros = profile.customMacros
        dailyCalorieGoal = profile.dailyCalorieGoal
        proteinGoalGrams = profile.proteinGoalGrams
        carbsGoalGrams = profile.carbsGoalGrams
        fatGoalGrams = profile.fatGoalGrams
        calorieBalanceGoal = profile.calorieBalanceGoal
        targetWeight = profile.targetWeightKg.map { kilograms in
            let value = profile.weightUnit == "lbs" ? kilograms / Profile.kilogramsPerPound : kilograms
            return (value * 10).rounded() / 10
        }
        weightUnit = profile.weightUnit
        timeZone = profile.timeZone
        heightCm = profile.heightCm
        birthDate = profile.birthDate
        sex = profile.sex
        activityLevel = profile.activityLevel
        historyRetentionDays = profile.historyRetentionDays
        deletePhotosAfterDays = profile.deletePhotosAfterDays
        dailyWaterGoalMillilitres = profile.dailyWaterGoalMillilitres
        weekStart = profile.weekStart
        version = profile.version
        updatedAt = profile.updatedAt
    }
}

/// The answer to register, login and refresh. `token` repeats `accessToken` for clients written to the seeds.
struct SessionBody: ResponseCodable, Equatable {
    var token: String
    var accessToken: String
    var tokenType = "Bearer"
    var expiresAt: Date
    /// Seconds until `expiresAt`.
    var expiresIn: Int
    var refreshToken: String
    var sessionId: UUID
    var user: UserBody
    var profile: ProfileBody
}

/// The signed-in caller's account and profile (`GET /api/auth/me`).
struct MeBody: ResponseCodable, Equatable {
    var user: UserBody
    var profile: ProfileBody
}

/// One session in `GET /api/auth/sessions`.
struct SessionListItem: ResponseCodable, Equatable {
    var id: UUID
    var createdAt: Date
    var lastUsedAt: Date
    var expiresAt: Date
    var userAgent: String?
    var clientAddress: String?
    /// True for the session of the token that asked.
    var current: Bool
}

/// `GET /api/auth/sessions`.
struct SessionListBody: ResponseCodable, Equatable {
    var sessions: [SessionListItem]
}

/// A plain acknowledgement with a sentence for people.
struct MessageBody: ResponseCodable, Equatable {
    var message: String
}
