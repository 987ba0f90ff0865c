import ServiceDefaults

/// `GET /api/summaries?from=&to=`: every day of a date range with its totals, goal status and health rating, and over
/// the range the daily averages, the macro energy split and the goal achievement, as the other dashboards count them.
struct SummariesReport: Codable, Sendable, Equatable {
    /// The most days one range may span (a leap year).
    static let maximumDays = 366

    var from: CalendarDate
    var to: CalendarDate
    /// Every day of the range, oldest first (days without meals included).
    var days: [DayReport]
    /// Daily averages over the logged days; nil when none was logged.
    var averages: NutritionAverages?
    /// The energy split of the macronutrients eaten over the range; nil when nothing was eaten.
    var macroSplit: MacroEnergySplit?
    var goal: GoalAchievement

    /// The days of `range` as `/api/progress` and `/api/calendar` show them, with the macro split beside.
    init(range: ClosedRange<CalendarDate>, summaries: [DaySummary], goals: GoalHistory) {
        let days = DaysReport(range: range, summaries: summaries, goals: goals)
        from = days.from
        to = days.to
        self.days = days.days
        averages = days.averages
        macroSplit = MacroEnergySplit(PeriodTotals(DaySummary.filled(summaries, over: range)))
        goal = days.goal
    }
}
