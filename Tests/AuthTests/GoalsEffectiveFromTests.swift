import Foundation
import TestSupport
import Testing

@testable import AuthService

/// The date from which the goals are in force, sent with every profile event for trends' goal history: today in the
/// user's zone, with each of `TestToday.variety` as today.
@Suite("Goals effective from")
struct GoalsEffectiveFromTests {
    /// A profile in `day`'s zone whose goals are in force since New Year.
    func current(_ day: TestToday) -> Profile {
        Profile(
            userId: UUID(), displayName: "Ada", dailyCalorieGoal: 2000, timeZone: day.zoneName, updatedAt: Date(timeIntervalSince1970: 0),
            goalsEffectiveFrom: "2026-01-01")
    }

    @Test("changing a goal starts it on today's date in the user's zone, and the event carries it", arguments: TestToday.variety)
    func goalChange(day: TestToday) throws {
        var change = ProfileUpdate()
        change.dailyCalorieGoal = .value(1800)
        let revised = try #require(try change.revision(of: current(day), at: day.now))
        #expect(revised.goalsEffectiveFrom == day.date)
        #expect(revised.event.goalsEffectiveFrom == day.date)
        var macros = ProfileUpdate()
        macros.proteinGoalGrams = .value(120)
        #expect(try macros.revision(of: current(day), at: day.now)?.goalsEffectiveFrom == day.date)
    }

    @Test("changing the zone and a goal at once starts the goal on today's date in the new zone", arguments: TestToday.variety)
    func zoneAndGoalChange(day: TestToday) throws {
        var profile = current(day)
        profile.timeZone = "UTC"
        var change = ProfileUpdate()
        change.timeZone = .value(day.zoneName)
        change.dailyCalorieGoal = .value(1800)
        #expect(try change.revision(of: profile, at: day.now)?.goalsEffectiveFrom == day.date)
    }

    /// Day-independent: the goals' date is kept whatever today is.
    @Test("a change of anything but the goals keeps their date")
    func otherChange() throws {
        var change = ProfileUpdate()
        change.displayName = .value("Ada L.")
        let revised = try #require(try change.revision(of: current(TestToday.weekdays[0]), at: TestToday.weekdays[0].now))
        #expect(revised.goalsEffectiveFrom == "2026-01-01" && revised.event.goalsEffectiveFrom == "2026-01-01")
    }
}
