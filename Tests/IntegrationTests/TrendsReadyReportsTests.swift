import EventContracts
import Foundation
import ServiceDefaults
import Testing

@testable import TrendsService

/// The dashboard reads served from ready reports: a repeated read answers the same, and the next read after an
/// event of the user, a deletion, a new day or a new time zone answers the new data.
@Suite("Trends reports served ready until the user's data changes", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct TrendsReadyReportsTests {
    /// 2026-03-10 15:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_773_154_800)

    @Test("a new event of the user changes the next answer of every dashboard read, and leaves another user's alone")
    func newEventChangesTheNextAnswer() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID(), other = UUID()
            try await stack.awaitApplied([
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: user, on: "2026-03-10", calories: 500, version: 1)), userId: user),
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: other, on: "2026-03-10", calories: 400, version: 1)), userId: other),
            ])
            let trends = try await stack.get("/api/trends?period=7d", as: user, TrendsReport.self)
            let stats = try await stack.get("/api/user/stats", as: user, UserStatsReport.self)
            let progress = try await stack.get("/api/progress?days=7", as: user, DaysReport.self)
            let calendar = try await stack.get("/api/calendar?month=2026-03", as: user, DaysReport.self)
            let achievements = try await stack.get("/api/achievements", as: user, AchievementsReport.self)
            #expect(try await stack.get("/api/trends?period=7d", as: user, TrendsReport.self) == trends, "a repeated read answers the same")
            #expect(try await stack.get("/api/user/stats", as: user, UserStatsReport.self) == stats)
            #expect(stats.allTime.totals.calories == 500 && achievements.currentStreak == 1)

            // A meal of yesterday: every report of the user shows it at once.
            try await stack.awaitApplied([
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: user, on: "2026-03-09", calories: 300, version: 1)), userId: user)
            ])
            let newTrends = try await stack.get("/api/trends?period=7d", as: user, TrendsReport.self)
            #expect(newTrends != trends && newTrends.days.first { $0.date.description == "2026-03-09" }?.calories == 300)
            #expect(try await stack.get("/api/user/stats", as: user, UserStatsReport.self).allTime.totals.calories == 800)
            #expect(try await stack.get("/api/progress?days=7", as: user, DaysReport.self).days[5].calories == 300, "progress: \(progress.from)")
            #expect(
                try await stack.get("/api/calendar?month=2026-03", as: user, DaysReport.self).days[8].calories == 300, "calendar: \(calendar.from)")
            #expect(try await stack.get("/api/achievements", as: user, AchievementsReport.self).currentStreak == 2)
            #expect(try await stack.get("/api/user/stats", as: other, UserStatsReport.self).allTime.totals.calories == 400)
        }
    }

    @Test("a deleted user's ready reports go: after user.deleted every dashboard read answers as for a new user")
    func deletedUsersReportsGo() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID()
            try await stack.awaitApplied([
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: user, on: "2026-03-10", calories: 650, version: 1)), userId: user),
                try await stack.publish(
                    WeightLogged(userId: user, date: "2026-03-10", weightKg: 72, ketonesMmolPerLiter: nil, loggedAt: Self.start, version: 1),
                    userId: user),
            ])
            let trends = try await stack.get("/api/trends?period=30d", as: user, TrendsReport.self)
            #expect(trends.weight.entries.count == 1 && trends.days.last?.calories == 650)
            #expect(try await stack.get("/api/user/stats", as: user, UserStatsReport.self).allTime.totals.calories == 650)
            #expect(try await stack.get("/api/achievements", as: user, AchievementsReport.self).currentStreak == 1)
            #expect(try await userRows(in: "user_data_versions", of: user, client: stack.database) == 1, "the user's version is there before")

            try await stack.awaitApplied([try await stack.publish(UserDeleted(userId: user, deletedAt: Self.start), userId: user)])
            let purged = try await stack.get("/api/trends?period=30d", as: user, TrendsReport.self)
            #expect(purged.weight.entries.isEmpty && purged.days.allSatisfy { $0.mealsConsumed == 0 })
            #expect(try await stack.get("/api/user/stats", as: user, UserStatsReport.self).allTime.totals.calories == 0)
            #expect(try await stack.get("/api/achievements", as: user, AchievementsReport.self).currentStreak == 0)
            #expect(try await userRows(in: "user_data_versions", of: user, client: stack.database) == 0, "nothing about the user stays")
        }
    }

    @Test("a ready report follows the user's today: a new day and a new time zone move the period")
    func todayMovesTheReport() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID()
            try await stack.awaitApplied([
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: user, on: "2026-03-10", calories: 500, version: 1)), userId: user)
            ])
            #expect(try await stack.get("/api/progress?days=1", as: user, DaysReport.self).to.description == "2026-03-10")
            stack.clock.advance(by: 24 * 3600)
            let nextDay = try await stack.get("/api/progress?days=1", as: user, DaysReport.self)
            #expect(nextDay.to.description == "2026-03-11" && nextDay.days.allSatisfy { $0.mealsConsumed == 0 })

            // 15:00 UTC on the 11th is already the 12th in Tokyo.
            let profile = UserProfileUpdated(userId: user, displayName: "T", dietPreference: "balanced", timeZone: "Asia/Tokyo", version: 1)
            try await stack.awaitApplied([try await stack.publish(profile, userId: user)])
            #expect(try await stack.get("/api/progress?days=1", as: user, DaysReport.self).to.description == "2026-03-12")
        }
    }
}
