import ServiceDefaults

/// `GET /api/user/stats`: counts, totals and averages for today, this week (the calendar week that starts on the
/// profile's `weekStart`, Monday unless set, in the user's zone) and all time, with the logging streak.
///
/// Every entry keeps the local date it was logged on. A user who moved west may have entries dated up to two days after
/// their today: they count in the week and all time at once, and in `today` when their day comes.
struct UserStatsReport: Codable, Sendable, Equatable {
    struct Nutrients: Codable, Sendable, Equatable {
        var calories: Double
        var proteinGrams: Double
        var carbsGrams: Double
        var fatGrams: Double
        var fiberGrams: Double
    }

    struct Span: Codable, Sendable, Equatable {
        /// nil for all time.
        var from: CalendarDate?
        var to: CalendarDate
        /// Every meal not deleted, consumed or only scanned.
        var mealsAnalyzed: Int
        var mealsConsumed: Int
        var mealsScanned: Int
        var daysLogged: Int
        /// Sums over consumed meals.
        var totals: Nutrients
        /// Over the days with a consumed meal.
        var averageCaloriesPerDay: Double?
        var averageCaloriesPerMeal: Double?

        init(from: CalendarDate?, to: CalendarDate, _ totals: PeriodTotals) {
            self.from = from
            self.to = to
            mealsAnalyzed = totals.mealsAnalyzed
            mealsConsumed = totals.mealsConsumed
            mealsScanned = totals.mealsScanned
            daysLogged = totals.daysLogged
            self.totals = Nutrients(
                calories: Rounding.tenths(totals.calories), proteinGrams: Rounding.tenths(totals.proteinGrams),
                carbsGrams: Rounding.tenths(totals.carbsGrams), fatGrams: Rounding.tenths(totals.fatGrams),
                fiberGrams: Rounding.tenths(totals.fiberGrams))
            averageCaloriesPerDay = totals.daysLogged > 0 ? Rounding.tenths(totals.calories / Double(totals.daysLogged)) : nil
            averageCaloriesPerMeal = totals.mealsConsumed > 0 ? Rounding.tenths(totals.calories / Double(totals.mealsConsumed)) : nil
        }
    }

    var today: Span
    var week: Span
    var allTime: Span
    var currentStreak: Int
    var longestStreak: Int

    /// The first day "all time" starts from.
    static let beginning = CalendarDate("0001-01-01")!
    /// The last day "all time" reaches.
    static let end = CalendarDate("9999-12-31")!

    /// The spans whose totals a report of `today` needs, for a week that starts on `weekStart`.
    static func spans(today: CalendarDate, weekStart: Weekday) -> (
        today: ClosedRange<CalendarDate>, week: ClosedRange<CalendarDate>, allTime: ClosedRange<CalendarDate>
    ) {
        let first = today.startOfWeek(on: weekStart)
        return (today...today, first...first.adding(days: 6), beginning...end)
    }

    /// - Parameter loggedDays: every day with a consumed meal; all time reaches the last of them when it is after today.
    init(today day: CalendarDate, weekStart: Weekday, totals: [ClosedRange<CalendarDate>: PeriodTotals], loggedDays: [CalendarDate]) {
        let spans = Self.spans(today: day, weekStart: weekStart)
        today = Span(from: day, to: day, totals[spans.today] ?? .zero)
        week = Span(from: spans.week.lowerBound, to: spans.week.upperBound, totals[spans.week] ?? .zero)
        allTime = Span(from: nil, to: max(day, loggedDays.max() ?? day), totals[spans.allTime] ?? .zero)
        let streaks = Streaks(loggedDays: loggedDays, today: day)
        currentStreak = streaks.current
        longestStreak = streaks.longest
    }
}
