import ServiceDefaults

/// `GET /api/achievements`: the logging streak and every streak milestone, locked or unlocked.
struct AchievementsReport: Codable, Sendable, Equatable {
    struct Achievement: Codable, Sendable, Equatable {
        /// `streak_7`, `streak_21`, ...
        var id: String
        var title: String
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
                id: "streak_\(days)", title: Self.title(days), description: "Log a consumed meal on \(days) days in a row.", days: days,
                unlocked: unlockedOn != nil, unlockedOn: unlockedOn, progressDays: min(streaks.current, days))
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
}
