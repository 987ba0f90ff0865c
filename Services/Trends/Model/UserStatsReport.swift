import ServiceDefaults

/// `GET /api/user/stats`: counts, totals and averages for today, this week (ISO week, Monday first, in the
/// user's zone) and all time, with the logging streak.
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
    static let beginning = CalendarDate(year: 1, month: 1)!

    init(today day: CalendarDate, totals: [CalendarDate: PeriodTotals], streaks: Streaks) {
        today = Span(from: day, to: day, totals[day] ?? .zero)
        week = Span(from: day.startOfWeek, to: day, totals[day.startOfWeek] ?? .zero)
        allTime = Span(from: nil, to: day, totals[Self.beginning] ?? .zero)
        currentStreak = streaks.current
        longestStreak = streaks.longest
    }
}
