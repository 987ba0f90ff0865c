import ServiceDefaults

/// `GET /api/achievements`: the logging streak and every streak milestone, locked or unlocked.
struct AchievementsReport: Codable, Sendable, Equatable {
    struct Achievement: Codable, Sendable, Equatable {
        /// `streak_7`, `streak_21`, ...: the canonical id, stable across releases.
        var id: String
        var title: String
        /// MacroLog's id of the milestone (`week_warrior`, ...), beside ours for that app.
        var key: String
        /// MacroLog's title of the milestone ("Week Warrior", ...).
        var name: String
        var description: String
        var days: Int
        var unlocked: Bool
        /// The day the streak first reached `days`.
        var unlockedOn: CalendarDate?
        /// Days of the current streak counted toward it (at most `days`).
        var progressDays: Int
    }

    var currentStreak: Int
    var longestStreak: Int
    /// The last day of the current streak; today's log extends it, and it breaks after a day with nothing consumed.
    var currentStreakEndsOn: CalendarDate?
    var achievements: [Achievement]

    init(_ streaks: Streaks) {
        currentStreak = streaks.current
        longestStreak = streaks.longest
        currentStreakEndsOn = streaks.currentEndsOn
        achievements = Streaks.milestones.map { days in
            let unlockedOn = streaks.unlocked[days]
            return Achievement(
                id: "streak_\(days)", title: Self.title(days), key: Self.macroLogNames(days).key, name: Self.macroLogNames(days).name,
                description: "Log a consumed meal on \(days) days in a row.", days: days, unlocked: unlockedOn != nil, unlockedOn: unlockedOn,
                progressDays: min(streaks.current, days))
        }
    }

    private static func title(_ days: Int) -> String {
        switch days {
        case 7: "First week"
        case 21: "Three weeks: a habit"
        case 35: "Five weeks strong"
        case 50: "Fifty days"
        case 100: "One hundred days"
        case 365: "A whole year"
        default: "\(days) days"
        }
    }

    /// The milestone's id and title in MacroLog's product document (004, F1.7).
    static func macroLogNames(_ days: Int) -> (key: String, name: String) {
        switch days {
        case 7: ("week_warrior", "Week Warrior")
        case 21: ("habit_builder", "Habit Builder")
        case 35: ("streak_master", "Streak Master")
        case 50: ("dedication", "Dedication")
        case 100: ("century_club", "Century Club")
        case 365: ("year_champion", "Year Champion")
        default: ("streak_\(days)", "\(days) Days")
        }
    }
}
