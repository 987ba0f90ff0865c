import EventContracts
import Foundation
import ServiceDefaults
import SyncContracts

/// What the meals service knows of a user from `user.profile_updated`: diet and goals for the scorers and
/// the time zone that turns times into the user's dates. A user whose profile has not arrived yet is
/// scored for a balanced diet without goals, in UTC.
struct CallerProfile: Sendable, Equatable {
    var scoring: ScoringProfile
    var timeZone: TimeZone
    /// The IANA name as the user chose it (Foundation may report "UTC" as "GMT").
    var timeZoneName: String
    /// How much history the user keeps (`historyRetentionDays`); nil keeps everything.
    var retention: HistoryRetention?

    static let standard = CallerProfile(scoring: .standard, timeZoneName: "UTC")

    /// The profile carried by an event; an unknown diet falls back to balanced, an unknown zone to UTC.
    init(event: UserProfileUpdated) {
        self.scoring = ScoringProfile(
            diet: DietPreference(rawValue: event.dietPreference) ?? .balanced, customMacros: event.customMacros,
            dailyCalorieGoal: event.dailyCalorieGoal, proteinGoalGrams: event.proteinGoalGrams,
            carbsGoalGrams: event.carbsGoalGrams, fatGoalGrams: event.fatGoalGrams, calorieBalanceGoal: event.calorieBalanceGoal)
        let known = TimeZone(identifier: event.timeZone)
        self.timeZone = known ?? TimeZone(identifier: "UTC")!
        self.timeZoneName = known == nil ? "UTC" : event.timeZone
        self.retention = event.historyRetentionDays.map { HistoryRetention(days: $0, timeZone: timeZone) }
    }

    /// A profile in the zone named `timeZoneName` (UTC when the name is unknown).
    init(scoring: ScoringProfile, timeZoneName: String) {
        self.scoring = scoring
        let known = TimeZone(identifier: timeZoneName)
        self.timeZone = known ?? TimeZone(identifier: "UTC")!
        self.timeZoneName = known == nil ? "UTC" : timeZoneName
    }

    /// The user's calendar date of `instant`, `YYYY-MM-DD`.
    func localDate(of instant: Date) -> String { CalendarDate(instant, in: timeZone).description }

    /// The first instant of the user's date `date` (`YYYY-MM-DD`), nil for an impossible date.
    func startOfDay(_ date: String) -> Date? { CalendarDate(date)?.start(in: timeZone) }
}
