import ServiceDefaults
import Testing

@testable import TrendsService

@Suite("Streaks and achievements")
struct StreakTests {
    let today = CalendarDate("2026-06-30")!

    /// `count` consecutive days ending `endingDaysAgo` days before today.
    func run(_ count: Int, endingDaysAgo: Int = 0) -> [CalendarDate] {
        (0..<count).map { today.adding(days: -endingDaysAgo - $0) }
    }

    @Test("a run ending today or yesterday is current; a gap of one empty day breaks it")
    func currentStreak() {
        #expect(Streaks(loggedDays: run(5), today: today).current == 5)
        let yesterday = Streaks(loggedDays: run(5, endingDaysAgo: 1), today: today)
        #expect(yesterday.current == 5 && yesterday.currentEndsOn == today.adding(days: -1))
        let broken = Streaks(loggedDays: run(5, endingDaysAgo: 2), today: today)
        #expect(broken.current == 0 && broken.longest == 5 && broken.currentEndsOn == nil)
        #expect(Streaks(loggedDays: [], today: today).current == 0)
    }

    @Test("the longest streak survives a break; duplicates, order and future days do not matter")
    func longestStreak() {
        let days = run(3) + run(9, endingDaysAgo: 10) + run(3) + [today.adding(days: 4)]
        let streaks = Streaks(loggedDays: days.shuffled(), today: today)
        #expect(streaks.current == 3)
        #expect(streaks.longest == 9)
    }

    @Test("milestones unlock on the day the streak first reaches them and stay unlocked after a break")
    func milestones() {
        let firstRun = run(22, endingDaysAgo: 40)
        let streaks = Streaks(loggedDays: firstRun + run(8), today: today)
        #expect(streaks.unlocked[7] == firstRun.last!.adding(days: 6))
        #expect(streaks.unlocked[21] == firstRun.last!.adding(days: 20))
        #expect(streaks.unlocked[35] == nil)
        #expect(streaks.current == 8 && streaks.longest == 22)

        let report = AchievementsReport(streaks)
        #expect(report.achievements.map(\.days) == [7, 21, 35, 50, 100, 365])
        #expect(report.achievements.map(\.unlocked) == [true, true, false, false, false, false])
        #expect(report.achievements.map(\.progressDays) == [7, 8, 8, 8, 8, 8])
        #expect(report.achievements[0].id == "streak_7")
        #expect(
            report.achievements.map(\.key) == ["week_warrior", "habit_builder", "streak_master", "dedication", "century_club", "year_champion"])
        #expect(
            report.achievements.map(\.name) == ["Week Warrior", "Habit Builder", "Streak Master", "Dedication", "Century Club", "Year Champion"])
    }

    @Test("a year of daily logging unlocks every milestone")
    func wholeYear() {
        let streaks = Streaks(loggedDays: run(365), today: today)
        #expect(Set(streaks.unlocked.keys) == Set(Streaks.milestones))
        #expect(streaks.unlocked[365] == today)
        #expect(streaks.unlocked[100] == today.adding(days: -265))
    }

    @Test("removing one day in the middle (a deleted meal) splits the run and re-locks what it no longer reaches")
    func lateDeletion() {
        var days = run(8)
        #expect(Streaks(loggedDays: days, today: today).unlocked[7] != nil)
        days.remove(at: 4)
        let streaks = Streaks(loggedDays: days, today: today)
        #expect(streaks.unlocked[7] == nil)
        #expect(streaks.current == 4 && streaks.longest == 4)
    }
}
