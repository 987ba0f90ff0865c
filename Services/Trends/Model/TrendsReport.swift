import ServiceDefaults

/// `GET /api/trends?period=`: consumed-meal averages, the macro energy split, the daily series of calories
/// and scores, the best and worst meals, the goal achievement rate, and the weight and ketone series.
struct TrendsReport: Codable, Sendable, Equatable {
    var period: TrendPeriod
    var from: CalendarDate
    var to: CalendarDate
    var averages: NutritionAverages?
    var macroSplit: MacroEnergySplit?
    /// Every day of the period, oldest first (days without meals included, for charts).
    var days: [DayReport]
    var bestMeals: [MealHighlight]
    var worstMeals: [MealHighlight]
    var goal: GoalAchievement
    var weight: WeightTrendReport
    var ketones: [KetoneReading]

    init(
        period: TrendPeriod, range: ClosedRange<CalendarDate>, summaries: [DaySummary], best: [MealHighlight], worst: [MealHighlight],
        bodyMetrics: [BodyMetricsDay], profile: TrendsProfile
    ) {
        let days = DaySummary.filled(summaries, over: range)
        let totals = PeriodTotals(days)
        self.period = period
        from = range.lowerBound
        to = range.upperBound
        averages = NutritionAverages(totals)
        macroSplit = MacroEnergySplit(totals)
        self.days = days.map { DayReport($0, goals: profile.goals) }
        bestMeals = best
        worstMeals = worst
        goal = GoalAchievement(days, goals: profile.goals)
        weight = WeightTrendReport(weighIns: bodyMetrics, period: range, profile: profile)
        ketones = bodyMetrics.filter { range.contains($0.date) }.compactMap { day in
            day.ketones.map { KetoneReading(date: day.date, level: $0, inKetosis: $0 > 0.5) }
        }
    }
}
