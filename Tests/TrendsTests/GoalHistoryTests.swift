import ServiceDefaults
import Testing

@testable import TrendsService

/// Each day judged by the goal in force that day (FitAI fixes a day's verdict when the day ends).
@Suite("Goal history")
struct GoalHistoryTests {
    static func date(_ text: String) -> CalendarDate { CalendarDate(text)! }

    @Test("a day takes the goal of the period it falls in; days before the first period take the first; none without periods")
    func periods() {
        let history = GoalHistory([
            .init(from: Self.date("2026-03-10"), dailyCalorieGoal: 1800), .init(from: Self.date("2026-03-01"), dailyCalorieGoal: 2000),
            .init(from: Self.date("2026-03-15"), dailyCalorieGoal: nil),
        ])
        #expect(history.periods.map(\.from.description) == ["2026-03-01", "2026-03-10", "2026-03-15"])
        #expect(history.dailyCalorieGoal(on: Self.date("2026-02-20")) == 2000, "a backfilled day before any goal takes the first")
        #expect(history.dailyCalorieGoal(on: Self.date("2026-03-09")) == 2000)
        #expect(history.dailyCalorieGoal(on: Self.date("2026-03-10")) == 1800)
        #expect(history.dailyCalorieGoal(on: Self.date("2026-03-16")) == nil, "a goal removed on the 15th")
        #expect(GoalHistory.none.dailyCalorieGoal(on: Self.date("2026-03-10")) == nil)
    }

    @Test("changing the goal today does not re-rate yesterday")
    func yesterdayKeepsItsVerdict() {
        var yesterday = DaySummary.empty(Self.date("2026-03-09"))
        yesterday.consumedCount = 3
        yesterday.calories = 2000
        let before = GoalHistory([.init(from: Self.date("2026-03-01"), dailyCalorieGoal: 2000)])
        let after = GoalHistory([
            .init(from: Self.date("2026-03-01"), dailyCalorieGoal: 2000), .init(from: Self.date("2026-03-10"), dailyCalorieGoal: 1200),
        ])
        let verdicts = [before, after].map { DayReport(yesterday, goal: $0.dailyCalorieGoal(on: yesterday.date)).goalStatus }
        #expect(verdicts == [.met, .met])
    }
}
