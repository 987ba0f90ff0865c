import ServiceDefaults

/// `GET /api/progress?days=` and `GET /api/calendar?month=`: a run of days with the goal achievement over them.
struct DaysReport: Codable, Sendable, Equatable {
    var from: CalendarDate
    var to: CalendarDate
    var days: [DayReport]
    var goal: GoalAchievement
    /// Daily averages over the logged days.
    var averages: NutritionAverages?

    init(range: ClosedRange<CalendarDate>, summaries: [DaySummary], goals: GoalHistory) {
        let days = DaySummary.filled(summaries, over: range)
        from = range.lowerBound
        to = range.upperBound
        self.days = days.map { DayReport($0, goals: goals) }
        self.goal = GoalAchievement(days, goals: goals)
        averages = NutritionAverages(PeriodTotals(days))
    }
}
