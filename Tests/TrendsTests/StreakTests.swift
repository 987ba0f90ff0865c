import ServiceDefaults
import TestSupport
import Testing

@testable import TrendsService

/// Streaks from the days a user logged, with each of `TestToday.variety` as today (each weekday, a zone a day ahead of UTC
/// and one a day behind, a week with a daylight-saving change).
@Suite("Streaks and achievements")
struct StreakTests {
    /// `count` consecutive days ending `endingDaysAgo` days before `today`.
    func run(_ count: Int, endingDaysAgo: Int = 0, before today: CalendarDate) -> [CalendarDate] {
        (0..<count).map { today.adding(days: -endingDaysAgo - $0) }
    }

    /// Today in the case's zone.
    func today(_ day: TestToday) -> CalendarDate { CalendarDate(day.now, in: day.zone) }

    @Test("a run ending today or yesterday is current; a gap of one empty day breaks it", arguments: TestToday.variety)
    func currentStreak(day: TestToday) {
        let today = today(day)
        func run(_ count: Int, endingDaysAgo: Int = 0) -> [CalendarDate] { self.run(count, endingDaysAgo: endingDaysAgo, before: today) }
        #expect(today.description == day.date, "the services' today is the calendar's")
        #expect(Streaks(loggedDays: run(5), today: today).current == 5)
        let yesterday = Streaks(loggedDays: run(5, endingDaysAgo: 1), today: today)
        #expect(yesterday.current == 5 && yesterday.currentEndsOn == today.adding(days: -1))
        let broken = Streaks(loggedDays: run(5, endingDaysAgo: 2), today: today)
        #expect(broken.current == 0 && broken.longest == 5 && broken.currentEndsOn == nil)
        #expect(Streaks(loggedDays: [], today: today).current == 0)
    }

    @Test("the longest streak survives a break; duplicates, order and future days do not matter", arguments: TestToday.variety)
    func longestStreak(day: TestToday) {
        let today = today(day)
        let days = run(3, before: today) + run(9, endingDaysAgo: 10, before: today) + run(3, before: today) + [today.adding(days: 4)]
        for seed in TestSeeds.list(default: Array(1...5)) {
            var generator = SplitMix64(seed: seed)
            let streaks = Streaks(loggedDays: days.shuffled(using: &generator), today: today)
            #expect(streaks.current == 3, "seed \(seed)")
            #expect(streaks.longest == 9, "seed \(seed)")
        }
    }

    @Test("milestones unlock on the day the streak first reaches them and stay unlocked after a break", arguments: TestToday.variety)
    func milestones(day: TestToday) {
        let today = today(day)
        func run(_ count: Int, endingDaysAgo: Int = 0) -> [CalendarDate] { self.run(count, endingDaysAgo: endingDaysAgo, before: today) }
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

    @Test("a year of daily logging unlocks every milestone", arguments: TestToday.variety)
    func wholeYear(day: TestToday) {
        let today = today(day)
        let streaks = Streaks(loggedDays: run(365, before: today), today: today)
        #expect(Set(streaks.unlocked.keys) == Set(Streaks.milestones))
        #expect(streaks.unlocked[365] == today)
        #expect(streaks.unlocked[100] == today.adding(days: -265))
    }

    @Test("removing one day in the middle (a deleted meal) splits the run and re-locks what it no longer reaches", arguments: TestToday.variety)
    func lateDeletion(day: TestToday) {
        let today = today(day)
        var days = run(8, before: today)
        #expect(Streaks(loggedDays: days, today: today).unlocked[7] != nil)
        days.remove(at: 4)
        let streaks = Streaks(loggedDays: days, today: today)
        #expect(streaks.unlocked[7] == nil)
        #expect(streaks.current == 4 && streaks.longest == 4)
    }
}
