import EventContracts
import ServiceDefaults
import Testing

@testable import TrendsService

@Suite("Daily summaries, goals and averages")
struct DayReportTests {
    func day(
        _ text: String, consumed: Int = 1, scanned: Int = 0, calories: Double, protein: Double = 0, carbs: Double = 0, fat: Double = 0,
        health: Double? = nil
    ) -> DaySummary {
        DaySummary(
            date: CalendarDate(text)!, consumedCount: consumed, scannedCount: scanned, calories: calories, proteinGrams: protein,
            carbsGrams: carbs, fatGrams: fat, fiberGrams: 0, dietScore: nil, healthScore: health)
    }

    @Test(
        "goal met within 90-110% of the goal, inclusive",
        arguments: [
            (1799.0, GoalStatus.under), (1800, .met), (2000, .met), (2200, .met), (2201, .over),
        ])
    func goalBand(calories: Double, expected: GoalStatus) {
        #expect(GoalStatus(day("2026-01-01", calories: calories), goal: 2000) == expected)
    }

    @Test("a day without a consumed meal or without a goal cannot be rated")
    func unrated() {
        let scannedOnly = day("2026-01-01", consumed: 0, scanned: 2, calories: 0)
        #expect(GoalStatus(scannedOnly, goal: 2000) == .notLogged)
        #expect(GoalStatus(day("2026-01-01", calories: 2000), goal: nil) == .noGoal)
        let report = DayReport(day("2026-01-01", calories: 2500), goal: 2000)
        #expect(report.goalMet == false && report.caloriesRemaining == -500)
        #expect(DayReport(scannedOnly, goal: 2000).goalMet == nil)
    }

    @Test("the daily health rating comes from the mean health score of consumed meals")
    func healthRating() {
        #expect(DayReport(day("2026-01-01", calories: 500, health: 89.6), goal: nil).healthRating == "nutritious")
        #expect(DayReport(day("2026-01-01", calories: 500, health: 69.4), goal: nil).healthRating == "fair")
        #expect(DayReport(day("2026-01-01", calories: 500, health: nil), goal: nil).healthRating == nil)
    }

    @Test("averages are over logged days only; the macro split is by energy")
    func averages() throws {
        let range = CalendarDate("2026-01-01")!...CalendarDate("2026-01-07")!
        let days = DaySummary.filled(
            [
                day("2026-01-02", calories: 2000, protein: 100, carbs: 200, fat: 80),
                day("2026-01-05", calories: 1000, protein: 50, carbs: 100, fat: 40),
            ],
            over: range)
        #expect(days.count == 7 && days.map(\.date) == (0..<7).map { range.lowerBound.adding(days: $0) })
        let totals = PeriodTotals(days)
        let averages = try #require(NutritionAverages(totals))
        #expect(averages.calories == 1500 && averages.proteinGrams == 75)
        let split = try #require(MacroEnergySplit(totals))
        // protein 600 kcal, carbs 1200, fat 1080 of 2880.
        #expect(split.proteinPercent == 20.8 && split.carbsPercent == 41.7 && split.fatPercent == 37.5)
        #expect(NutritionAverages(PeriodTotals([])) == nil)
        let goal = GoalAchievement(days, goals: GoalHistory([.init(from: range.lowerBound, dailyCalorieGoal: 2000)]))
        #expect(goal.daysLogged == 2 && goal.daysMet == 1 && goal.achievementRate == 0.5)
        #expect(GoalAchievement(days, goals: .none).achievementRate == nil)
        // The goal became 1000 on the 5th: the 2nd is still met by 2000, the 5th now by 1000.
        let changed = GoalHistory([
            .init(from: CalendarDate("2026-01-05")!, dailyCalorieGoal: 1000), .init(from: range.lowerBound, dailyCalorieGoal: 2000),
        ])
        let both = GoalAchievement(days, goals: changed)
        #expect(both.daysMet == 2 && both.achievementRate == 1 && both.dailyCalorieGoal == 1000)
    }

    @Test("this week is the seven days from the profile's weekStart that hold today, for every weekStart and weekday")
    func statsSpans() {
        for offset in 0..<7 {
            let today = CalendarDate("2026-11-16")!.adding(days: offset)  // Monday to Sunday
            for weekStart in Weekday.allCases {
                let spans = UserStatsReport.spans(today: today, weekStart: weekStart)
                #expect(
                    spans.week.contains(today) && spans.week.lowerBound.days(until: spans.week.upperBound) == 6, "\(today), week from \(weekStart)")
                #expect(spans.week.lowerBound.isoWeekday == weekStart.isoNumber, "\(today), week from \(weekStart)")
            }
        }
    }

    @Test("each span reads its own totals; all time reaches the last logged day when it is after today")
    func statsTotals() {
        let today = CalendarDate("2026-11-22")!  // a Sunday
        let spans = UserStatsReport.spans(today: today, weekStart: .monday)
        let totals: [ClosedRange<CalendarDate>: PeriodTotals] = [
            spans.today: PeriodTotals(
                mealsConsumed: 2, mealsScanned: 1, daysLogged: 1, calories: 1200, proteinGrams: 0, carbsGrams: 0, fatGrams: 0, fiberGrams: 0),
            spans.week: PeriodTotals(
                mealsConsumed: 10, mealsScanned: 1, daysLogged: 5, calories: 9000, proteinGrams: 0, carbsGrams: 0, fatGrams: 0, fiberGrams: 0),
        ]
        let tomorrow = today.adding(days: 1)
        let report = UserStatsReport(today: today, weekStart: .monday, totals: totals, loggedDays: [today, tomorrow])
        #expect(report.week.from == CalendarDate("2026-11-16") && report.week.to == CalendarDate("2026-11-22"))
        #expect(report.today.mealsAnalyzed == 3 && report.today.averageCaloriesPerMeal == 600)
        #expect(report.week.averageCaloriesPerDay == 1800)
        #expect(report.allTime.mealsAnalyzed == 0 && report.allTime.averageCaloriesPerDay == nil)
        #expect(report.allTime.to == tomorrow, "an entry dated after today (a move west) is inside all time")
        #expect(report.currentStreak == 1)
    }
}
