import ServiceDefaults

/// The user's daily calorie goal period by period, as `user.profile_updated` dated them (`goalsEffectiveFrom`): a day
/// is judged by the goal in force that day, so changing the goal today does not re-rate yesterday. Days before the
/// first period are judged by the first one (a day logged later than it happened, before any goal was set). Without
/// any period (a user whose profile has not arrived), there is no goal.
struct GoalHistory: Sendable, Equatable {
    /// One period: the goal in force from `from` until the next period starts.
    struct Period: Sendable, Equatable {
        var from: CalendarDate
        var dailyCalorieGoal: Int?
    }

    /// Oldest first.
    private(set) var periods: [Period]
    /// The user's current daily water goal in millilitres, which every day's water is shown against (water goals have
    /// no history); nil: no goal.
    var dailyWaterGoalMillilitres: Int?

    init(_ periods: [Period]) {
        self.periods = periods.sorted { $0.from < $1.from }
    }

    static let none = GoalHistory([])

    /// The daily calorie goal in force on `date`.
    func dailyCalorieGoal(on date: CalendarDate) -> Int? {
        (periods.last { $0.from <= date } ?? periods.first)?.dailyCalorieGoal
    }
}
