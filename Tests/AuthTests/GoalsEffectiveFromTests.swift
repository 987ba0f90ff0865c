import Foundation
import Testing

@testable import AuthService

/// The date from which the goals are in force, sent with every profile event for trends' goal history.
@Suite("Goals effective from")
struct GoalsEffectiveFromTests {
    /// 2026-03-10 02:00 UTC: still 2026-03-09 in New York.
    static let now = Date(timeIntervalSince1970: 1_773_108_000)
    let current = Profile(
        userId: UUID(), displayName: "Ada", dailyCalorieGoal: 2000, timeZone: "America/New_York", updatedAt: Date(timeIntervalSince1970: 0),
        goalsEffectiveFrom: "2026-01-01")

    @Test("changing a goal starts it on today's date in the user's zone, and the event carries it")
    func goalChange() throws {
        var change = ProfileUpdate()
        change.dailyCalorieGoal = .value(1800)
        let revised = try #require(try change.revision(of: current, at: Self.now))
        #expect(revised.goalsEffectiveFrom == "2026-03-09")
        #expect(revised.event.goalsEffectiveFrom == "2026-03-09")
        var macros = ProfileUpdate()
        macros.proteinGoalGrams = .value(120)
        #expect(try macros.revision(of: current, at: Self.now)?.goalsEffectiveFrom == "2026-03-09")
    }

    @Test("a change of anything but the goals keeps their date")
    func otherChange() throws {
        var change = ProfileUpdate()
        change.displayName = .value("Ada L.")
        let revised = try #require(try change.revision(of: current, at: Self.now))
        #expect(revised.goalsEffectiveFrom == "2026-01-01" && revised.event.goalsEffectiveFrom == "2026-01-01")
    }
}
