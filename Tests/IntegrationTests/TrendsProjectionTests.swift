import EventContracts
import Foundation
import ServiceDefaults
import Testing

@testable import TrendsService

/// The trends read models under redelivery, reordering, late edits and purges, fed straight from the broker.
@Suite("Trends projection from events", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct TrendsProjectionTests {
    /// 2026-03-10 15:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_773_154_800)

    @Test("a redelivered event, and a second copy of the same version, count once")
    func redelivery() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID(), meal = UUID()
            let consumed = MealConsumed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-10", calories: 600, version: 1))
            let first = try await stack.publish(consumed, userId: user)
            let redelivered = try await stack.publish(consumed, userId: user, id: first)
            let copy = try await stack.publish(MealAnalyzed(meal: consumed.meal), userId: user)
            try await stack.awaitApplied([first, redelivered, copy])
            let day = try await stack.get("/api/history/2026-03-10", as: user, DayHistory.self)
            #expect(day.meals.count == 1)
            #expect(day.summary.calories == 600 && day.summary.mealsConsumed == 1 && day.summary.mealsScanned == 0)
            let stats = try await stack.get("/api/user/stats", as: user, UserStatsReport.self)
            #expect(stats.today.mealsConsumed == 1 && stats.allTime.totals.calories == 600)
        }
    }

    @Test("reordered copies: the highest version wins, and a deletion is final")
    func reordering() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID(), kept = UUID(), deleted = UUID(), unconsumed = UUID()
            var ids: [UUID] = []
            ids.append(
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(kept, of: user, on: "2026-03-10", calories: 800, version: 3)), userId: user))
            ids.append(
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(kept, of: user, on: "2026-03-10", calories: 500, version: 2)), userId: user))
            ids.append(
                try await stack.publish(
                    MealAnalyzed(meal: TestMeals.snapshot(kept, of: user, on: "2026-03-10", calories: 400, consumed: false, version: 1)), userId: user
                ))
            // The deletion overtakes the meal's own events.
            ids.append(try await stack.publish(MealDeleted(mealId: deleted, userId: user, reason: "deleted", version: 3), userId: user))
            ids.append(
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(deleted, of: user, on: "2026-03-10", calories: 999, version: 2)), userId: user))
            // Unconsumed (version 2) before the meal was ever seen, then its copies.
            ids.append(try await stack.publish(MealDeleted(mealId: unconsumed, userId: user, reason: "unconsumed", version: 2), userId: user))
            ids.append(
                try await stack.publish(
                    MealAnalyzed(meal: TestMeals.snapshot(unconsumed, of: user, on: "2026-03-10", calories: 300, consumed: false, version: 2)),
                    userId: user))
            ids.append(
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(unconsumed, of: user, on: "2026-03-10", calories: 300, version: 1)), userId: user))
            try await stack.awaitApplied(ids)

            let day = try await stack.get("/api/history/2026-03-10", as: user, DayHistory.self)
            #expect(Set(day.meals.map(\.mealId)) == [kept, unconsumed])
            #expect(day.summary.calories == 800 && day.summary.mealsConsumed == 1 && day.summary.mealsScanned == 1)
            #expect(day.meals.first { $0.mealId == unconsumed }?.isConsumed == false)
        }
    }

    @Test("an unconsume that overtakes the edits before it does not keep the stale content: the full copy of its version wins")
    func unconsumeAfterAGap() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID(), meal = UUID()
            var ids = [
                try await stack.publish(
                    MealAnalyzed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-10", calories: 164, consumed: false, version: 1)), userId: user
                )
            ]
            try await stack.awaitApplied(ids)
            // Versions 2 (consumed, edited to 314 kcal) and 3 (unconsumed) arrive with the deletion first.
            ids = [
                try await stack.publish(MealDeleted(mealId: meal, userId: user, reason: "unconsumed", version: 3), userId: user),
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-10", calories: 314, version: 2)), userId: user),
                try await stack.publish(
                    MealAnalyzed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-10", calories: 314, consumed: false, version: 3)), userId: user
                ),
            ]
            try await stack.awaitApplied(ids)
            let day = try await stack.get("/api/history/2026-03-10", as: user, DayHistory.self)
            #expect(day.meals.map(\.totals.calories) == [314] && day.meals.first?.isConsumed == false)
            #expect(day.summary.mealsScanned == 1 && day.summary.mealsConsumed == 0 && day.summary.calories == 0)
        }
    }

    @Test("a late edit moves or changes a past day; unconsuming and deleting take it off the day")
    func lateEdits() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID(), meal = UUID(), other = UUID()
            var ids = [
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-05", calories: 500, version: 1)), userId: user),
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(other, of: user, on: "2026-03-06", calories: 200, version: 1)), userId: user),
            ]
            try await stack.awaitApplied(ids)
            ids = [
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-05", calories: 700, version: 2)), userId: user)
            ]
            try await stack.awaitApplied(ids)
            var progress = try await stack.get("/api/progress?days=7", as: user, DaysReport.self)
            // The week is 2026-03-04 ... 2026-03-10.
            #expect(progress.days.map(\.calories) == [0, 700, 200, 0, 0, 0, 0])

            // The meal's time is corrected to the next day: both days are recomputed.
            ids = [
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(meal, of: user, on: "2026-03-06", calories: 700, version: 3)), userId: user)
            ]
            try await stack.awaitApplied(ids)
            progress = try await stack.get("/api/progress?days=7", as: user, DaysReport.self)
            #expect(progress.days.map(\.calories) == [0, 0, 900, 0, 0, 0, 0])
            #expect(progress.days[2].mealsConsumed == 2)

            ids = [
                try await stack.publish(MealDeleted(mealId: meal, userId: user, reason: "unconsumed", version: 4), userId: user),
                try await stack.publish(MealDeleted(mealId: other, userId: user, reason: "deleted", version: 2), userId: user),
            ]
            try await stack.awaitApplied(ids)
            progress = try await stack.get("/api/progress?days=7", as: user, DaysReport.self)
            #expect(progress.days[2].calories == 0 && progress.days[2].mealsConsumed == 0 && progress.days[2].mealsScanned == 1)
            #expect(progress.days[2].goalStatus == .notLogged)
        }
    }

    @Test("weights and profiles keep their newest version; the trend, goals and the user's today follow the profile")
    func bodyMetricsAndProfile() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID()
            var profile = UserProfileUpdated(
                userId: user, displayName: "P", dietPreference: "keto", dailyCalorieGoal: 2000, weightUnit: "kg", timeZone: "Asia/Tokyo", version: 2)
            var stale = profile
            stale.dailyCalorieGoal = 1200
            stale.timeZone = "UTC"
            stale.version = 1
            profile.targetWeightKg = 70
            var ids = [try await stack.publish(profile, userId: user), try await stack.publish(stale, userId: user)]
            let weights: [(String, Double?, Double?, Int)] = [
                ("2026-03-08", 81, 0.3, 1), ("2026-03-09", 80.6, 1.1, 2), ("2026-03-09", 99, nil, 1), ("2026-03-10", 80.2, nil, 1),
            ]
            for (date, kg, ketones, version) in weights {
                ids.append(
                    try await stack.publish(
                        WeightLogged(userId: user, date: date, weightKg: kg, ketonesMmolPerLiter: ketones, loggedAt: Self.start, version: version),
                        userId: user))
            }
            ids.append(
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: user, on: "2026-03-11", calories: 1900, version: 1, timeZone: "Asia/Tokyo")),
                    userId: user))
            try await stack.awaitApplied(ids)

            // 15:00 UTC is already 2026-03-11 in Tokyo.
            let trends = try await stack.get("/api/trends?period=7d", as: user, TrendsReport.self)
            #expect(trends.to.description == "2026-03-11" && trends.from.description == "2026-03-05")
            #expect(trends.goal.dailyCalorieGoal == 2000 && trends.goal.daysMet == 1 && trends.goal.achievementRate == 1)
            #expect(trends.weight.entries.map(\.weight) == [81, 80.6, 80.2])
            #expect(trends.weight.unit == "kg")
            #expect(trends.ketones.map(\.inKetosis) == [false, true])
            #expect((trends.weight.change ?? 0) < 0, "a falling weight has a falling trend")
        }
    }

    @Test("user.deleted purges every read model, and later events of that user are ignored")
    func purge() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let leaving = UUID(), staying = UUID()
            var ids: [UUID] = []
            for user in [leaving, staying] {
                ids.append(
                    try await stack.publish(
                        MealConsumed(meal: TestMeals.snapshot(UUID(), of: user, on: "2026-03-10", calories: 500, version: 1)), userId: user))
                ids.append(
                    try await stack.publish(
                        WeightLogged(userId: user, date: "2026-03-10", weightKg: 70, ketonesMmolPerLiter: nil, loggedAt: Self.start, version: 1),
                        userId: user))
                ids.append(
                    try await stack.publish(UserProfileUpdated(userId: user, displayName: "x", dietPreference: "balanced", version: 1), userId: user))
            }
            try await stack.awaitApplied(ids)
            let tables = ["meals", "daily_summaries", "body_metrics", "user_profiles"]
            for table in tables {
                #expect(try await userRows(in: table, of: leaving, client: stack.database) == 1, "\(table) held the user before")
            }
            ids = [try await stack.publish(UserDeleted(userId: leaving, deletedAt: Self.start), userId: leaving)]
            try await stack.awaitApplied(ids)
            ids = [
                try await stack.publish(
                    MealConsumed(meal: TestMeals.snapshot(UUID(), of: leaving, on: "2026-03-10", calories: 300, version: 1)), userId: leaving)
            ]
            try await stack.awaitApplied(ids)

            for table in tables {
                #expect(try await userRows(in: table, of: leaving, client: stack.database) == 0, "\(table) still holds the deleted user")
                #expect(try await userRows(in: table, of: staying, client: stack.database) == 1, "\(table) lost the other user")
            }
        }
    }

    @Test("goal history from profile events in any order: each day judged by the goal in force that day, earlier days by the first")
    func goalHistory() async throws {
        try await ProjectionStack.run(start: Self.start) { stack in
            let user = UUID()
            func profile(goal: Int?, from date: String, version: Int) -> UserProfileUpdated {
                var event = UserProfileUpdated(userId: user, displayName: "g", dietPreference: "balanced", dailyCalorieGoal: goal, version: version)
                event.goalsEffectiveFrom = date
                return event
            }
            var ids: [UUID] = []
            // The newest goal first, then the one before it, then a stale copy of an older version for the same date.
            for event in [
                profile(goal: 1200, from: "2026-03-10", version: 3), profile(goal: 2000, from: "2026-03-01", version: 2),
                profile(goal: nil, from: "2026-03-01", version: 1),
            ] {
                ids.append(try await stack.publish(event, userId: user))
            }
            for (date, calories) in [("2026-02-27", 2000.0), ("2026-03-05", 2000), ("2026-03-10", 1200)] {
                let meal = TestMeals.snapshot(UUID(), of: user, on: date, calories: calories, version: 1)
                ids.append(try await stack.publish(MealConsumed(meal: meal), userId: user))
            }
            try await stack.awaitApplied(ids)
            let march = try await stack.get("/api/calendar?month=2026-03", as: user, DaysReport.self)
            #expect(march.days[4].goalStatus == .met, "the 5th, judged by 2,000 kcal: \(march.days[4].goalStatus)")
            #expect(march.days[9].goalStatus == .met, "the 10th, judged by 1,200 kcal: \(march.days[9].goalStatus)")
            #expect(march.goal.daysMet == 2 && march.goal.dailyCalorieGoal == 1200)
            let february = try await stack.get("/api/history/2026-02-27", as: user, DayHistory.self)
            #expect(february.summary.goalStatus == .met, "a day before the first period is judged by the first")
        }
    }
}
