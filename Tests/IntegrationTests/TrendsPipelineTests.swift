import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import TrendsService

/// The dashboards fed by the real services: meals and weights go in through the gateway, the read models
/// are built from the events the services publish, and the answers come back through the gateway.
@Suite("Trends from the real services", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct TrendsPipelineTests {
    /// 2026-03-10 07:30 UTC: 00:30 on 2026-03-10 in Los Angeles (PDT, UTC-7).
    static let start = Date(timeIntervalSince1970: 1_773_127_800)

    @Test("days are the user's local days: a meal at 23:30 in Los Angeles counts on that day, not on the UTC one")
    func localDayBoundary() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            try await stack.setProfile(#"{"timeZone":"America/Los_Angeles","dailyCalorieGoal":2000}"#, token: token)
            // 06:30 UTC is 23:30 on 2026-03-09 in Los Angeles; 07:15 UTC is 00:15 on 2026-03-10.
            let late = try await stack.logMeal(calories: 1900, at: "2026-03-10T06:30:00Z", expectDay: "2026-03-09", token: token)
            _ = try await stack.logMeal(calories: 600, at: "2026-03-10T07:15:00Z", expectDay: "2026-03-10", token: token)

            let progress = try await stack.eventually("/api/progress?days=2", token: token, as: DaysReport.self) {
                $0.days.map(\.goalStatus) == [.met, .under]
            }
            #expect(progress.to.description == "2026-03-10", "today is the Los Angeles day")
            #expect(progress.days.map(\.calories) == [1900, 600])
            #expect(progress.days.map(\.goalStatus) == [.met, .under])
            #expect(progress.goal.achievementRate == 0.5)
            let history = try await stack.eventually("/api/history/2026-03-09", token: token, as: DayHistory.self) { $0.meals.count == 1 }
            #expect(history.meals.map(\.mealId) == [late.id] && history.summary.goalMet == true)
            let stats = try await stack.eventually("/api/user/stats", token: token, as: UserStatsReport.self) { $0.allTime.mealsConsumed == 2 }
            #expect(stats.today.totals.calories == 600 && stats.today.mealsConsumed == 1)
            #expect(stats.allTime.totals.calories == 2500 && stats.allTime.daysLogged == 2)
            let calendar = try await stack.eventually("/api/calendar?month=2026-03", token: token, as: DaysReport.self) { $0.goal.daysLogged == 2 }
            #expect(calendar.days.count == 10 && calendar.days[8].goalStatus == .met && calendar.days[0].goalStatus == .notLogged)
        }
    }

    @Test("an edit of an old meal corrects its day; a deletion removes it from every dashboard")
    func editsAndDeletes() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            let old = try await stack.logMeal(calories: 800, at: "2026-03-05T12:00:00Z", expectDay: "2026-03-05", token: token)
            let recent = try await stack.logMeal(calories: 400, at: "2026-03-09T12:00:00Z", expectDay: "2026-03-09", token: token)
            _ = try await stack.eventually("/api/trends?period=7d", token: token, as: TrendsReport.self) { $0.goal.daysLogged == 2 }

            let edit = try await stack.gateway.call(
                .put, "/api/meals/\(old.id.uuidString.lowercased())", json: #"{"items":[\#(Self.item(calories: 1000))]}"#, token: token)
            #expect(edit.status == .ok)
            let corrected = try await stack.eventually("/api/history/2026-03-05", token: token, as: DayHistory.self) {
                $0.summary.calories == 1000
            }
            #expect(corrected.summary.calories == 1000 && corrected.summary.mealsConsumed == 1)

            #expect(try await stack.gateway.call(.delete, "/api/meals/\(recent.id.uuidString.lowercased())", token: token).status == .noContent)
            let trends = try await stack.eventually("/api/trends?period=7d", token: token, as: TrendsReport.self) { $0.goal.daysLogged == 1 }
            #expect(trends.days.map(\.calories) == [0, 1000, 0, 0, 0, 0, 0])
            #expect(trends.averages?.calories == 1000)
            #expect(trends.bestMeals.map(\.mealId) == [old.id] && trends.worstMeals.map(\.mealId) == [old.id])
        }
    }

    @Test("seven days in a row unlock the first achievement on the seventh; a missed day breaks the streak")
    func streakToFirstAchievement() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let email = "streak-\(UUID().uuidString.prefix(8))@example.com"
            let token = try await stack.gateway.register(email: email).accessToken
            for daysAgo in (0..<7).reversed() {
                let instant = Self.start.addingTimeInterval(Double(-daysAgo) * 86_400)
                let day = CalendarDate(instant, in: TimeZone(identifier: "UTC")!).description
                _ = try await stack.logMeal(calories: 500, at: Self.timestamp(instant), expectDay: day, token: token)
            }
            let unlocked = try await stack.eventually("/api/achievements", token: token, as: AchievementsReport.self) { $0.currentStreak == 7 }
            #expect(unlocked.currentStreak == 7 && unlocked.longestStreak == 7)
            #expect(unlocked.achievements.first?.unlocked == true && unlocked.achievements.first?.unlockedOn?.description == "2026-03-10")
            #expect(unlocked.achievements.dropFirst().allSatisfy { !$0.unlocked })

            stack.clock.advance(by: 2 * 86_400)
            // Two days later the access token has expired: sign in again.
            let fresh = try await stack.gateway.login(email: email).decoded(SessionAnswer.self).accessToken
            let broken = try await stack.gateway.call(.get, "/api/achievements", token: fresh).decoded(AchievementsReport.self)
            #expect(broken.currentStreak == 0 && broken.longestStreak == 7 && broken.achievements.first?.unlocked == true)
        }
    }

    @Test("a goal changed today does not re-rate yesterday: each day keeps the verdict of the goal in force that day")
    func goalHistory() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let email = "goals-\(UUID().uuidString.prefix(8))@example.com"
            let token = try await stack.gateway.register(email: email).accessToken
            try await stack.setProfile(#"{"dailyCalorieGoal":2000}"#, token: token)
            _ = try await stack.logMeal(calories: 2000, at: Self.timestamp(Self.start), expectDay: "2026-03-10", token: token)
            let metDay = try await stack.eventually("/api/history/2026-03-10", token: token, as: DayHistory.self) {
                $0.summary.goalStatus == .met
            }
            #expect(metDay.summary.goalStatus == .met)

            // The next day the user lowers the goal to 1,200 kcal: the 10th stays met, the 11th is judged by 1,200.
            stack.clock.advance(by: 86_400)
            let fresh = try await stack.gateway.login(email: email).decoded(SessionAnswer.self).accessToken
            try await stack.setProfile(#"{"dailyCalorieGoal":1200}"#, token: fresh)
            _ = try await stack.logMeal(
                calories: 1200, at: Self.timestamp(Self.start.addingTimeInterval(86_400)), expectDay: "2026-03-11", token: fresh)
            let progress = try await stack.eventually("/api/progress?days=2", token: fresh, as: DaysReport.self) {
                $0.goal.dailyCalorieGoal == 1200 && $0.days.last?.calories == 1200
            }
            #expect(progress.days.map(\.goalStatus) == [.met, .met], "each day by its own goal: \(progress.days.map(\.goalStatus))")
            #expect(progress.goal.daysMet == 2 && progress.goal.dailyCalorieGoal == 1200)
            let yesterday = try await stack.gateway.call(.get, "/api/history/2026-03-10", token: fresh).decoded(DayHistory.self)
            #expect(yesterday.summary.goalStatus == .met && yesterday.summary.caloriesRemaining == 0)
        }
    }

    @Test("the expenditure estimate of a user whose true expenditure is 2,500 kcal, from 28 days logged through the API")
    func expenditure() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let (token, _) = try await stack.signUp()
            try await stack.setProfile(#"{"calorieBalanceGoal":-500}"#, token: token)
            // Eating 2,000 kcal a day with a true expenditure of 2,500 loses 500 / 7,700 kg a day.
            for daysAgo in (1...28).reversed() {
                let instant = Self.start.addingTimeInterval(Double(-daysAgo) * 86_400)
                let day = CalendarDate(instant, in: TimeZone(identifier: "UTC")!).description
                let weight = 90 - Double(28 - daysAgo) * 500 / 7700 + (daysAgo % 3 == 0 ? 0.3 : daysAgo % 3 == 1 ? -0.2 : 0)
                let logged = try await stack.gateway.call(
                    .post, "/api/metrics/weight", json: #"{"date":"\#(day)","weight":\#(weight)}"#, token: token)
                #expect(logged.status == .created)
                _ = try await stack.logMeal(calories: 2000, at: Self.timestamp(instant), expectDay: day, token: token)
            }
            let estimate = try await stack.eventually("/api/trends/expenditure", token: token, as: ExpenditureAnswer.self) {
                // The balance goal reaches trends in its own event, on its own time.
                $0.method == "energy_balance" && $0.window.loggedDays == 28 && $0.window.weighIns == 28 && $0.suggestedTarget?.basis == "deficit"
            }
            #expect(estimate.method == "energy_balance")
            let expenditure = try #require(estimate.dailyExpenditure)
            #expect(abs(expenditure - 2500) <= 150, "estimated \(expenditure) kcal for a true 2,500")
            #expect(estimate.confidence.level == "high")
            #expect(estimate.suggestedTarget?.basis == "deficit" && estimate.suggestedTarget?.calories == expenditure - 500)
        }
    }

    @Test("deleting the account purges every trends read model of the user")
    func purge() async throws {
        try await TrackingStack.run(withMeals: true, start: Self.start) { stack in
            let leaving = try await stack.gateway.register(email: "leaving-\(UUID().uuidString.prefix(8))@example.com")
            _ = try await stack.logMeal(calories: 500, at: "2026-03-09T12:00:00Z", expectDay: "2026-03-09", token: leaving.accessToken)
            _ = try await stack.gateway.call(.post, "/api/metrics/weight", json: #"{"weight":70}"#, token: leaving.accessToken)
            _ = try await stack.eventually("/api/user/stats", token: leaving.accessToken, as: UserStatsReport.self) { $0.allTime.mealsConsumed == 1 }
            let gone = try await stack.gateway.call(
                .delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: leaving.accessToken)
            #expect(gone.status == .noContent)
            let purged = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                var total = 0
                for table in ["meals", "daily_summaries", "body_metrics", "user_profiles"] {
                    total += try await userRows(in: table, of: leaving.user.id, client: stack.trendsDatabase)
                }
                return total == 0
            }
            #expect(purged, "the trends read models still hold the deleted user")
        }
    }

    static func item(calories: Double) -> String {
        // Protein and carbs 4 kcal/g, fat 9: a 25/45/30 split that adds up to `calories`.
        #"{"name":"Plate","grams":600,"calories":\#(calories),"protein":\#(calories * 0.25 / 4),"carbs":\#(calories * 0.45 / 4),"#
            + #""fat":\#(calories * 0.30 / 9)}"#
    }

    static func timestamp(_ instant: Date) -> String { instant.formatted(Date.ISO8601FormatStyle()) }
}

extension TrackingStack {
    /// Updates the profile; its event reaches the other services a moment later.
    func setProfile(_ json: String, token: String) async throws {
        let response = try await gateway.call(.put, "/api/users/profile", json: json, token: token)
        #expect(response.status == .ok, "profile update answered \(response.status)")
    }

    /// Logs a consumed meal of `calories` eaten `at`; retries until the meals service files it on `expectDay`
    /// (a profile change takes a moment to reach it), deleting misfiled attempts.
    func logMeal(calories: Double, at eatenAt: String, expectDay: String, token: String) async throws -> MealAnswer {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let response = try await gateway.call(
                .post, "/api/meals", json: #"{"eatenAt":"\#(eatenAt)","items":[\#(TrendsPipelineTests.item(calories: calories))]}"#, token: token)
            #expect(response.status == .created, "manual entry answered \(response.status): \(String(buffer: response.body))")
            let meal = try response.decoded(MealAnswer.self)
            if meal.localDate == expectDay || ContinuousClock.now > deadline {
                #expect(meal.localDate == expectDay)
                return meal
            }
            _ = try await gateway.call(.delete, "/api/meals/\(meal.id.uuidString.lowercased())", token: token)
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// The parts of the expenditure answer the tests read.
struct ExpenditureAnswer: Decodable, Sendable {
    struct Confidence: Decodable, Sendable { var level: String; var score: Double }
    struct Window: Decodable, Sendable { var loggedDays: Int; var weighIns: Int }
    struct Target: Decodable, Sendable { var calories: Int; var basis: String }
    var method: String
    var dailyExpenditure: Int?
    var confidence: Confidence
    var window: Window
    var suggestedTarget: Target?
}
