import EventContracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import TrendsService

/// Each client document's main journey, end to end through the gateway only, against every real service, the
/// real database and broker. Every answer is held to the OpenAPI document (the gateway client checks it) and every
/// event the journey causes to the AsyncAPI document.
@Suite("Client journeys through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct JourneyTests {
    /// Tuesday 2026-03-10, 12:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_773_144_000)
    static let password = "correct horse battery"

    @Test(
        "NutritionAI (000): register, keto, analyse a photo, diet score, consume with a note, edit, weight and ketones, 7-day trends, share, expire")
    func nutritionAI() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let ana = try await stack.signUp("Ana")
            try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"dietPreference":"keto","dailyCalorieGoal":1800}"#, token: ana.token)
            stack.vision.script(
                #"{"items":[{"name":"salmon","amount":1,"unit":"fillet","grams":150,"confidence":0.9,"calories_kcal":310,"protein_g":34,"#
                    + #""carbs_g":0,"fat_g":19,"fiber_g":0,"sugars_g":0,"saturated_fat_g":3,"sodium_mg":90,"alcohol_g":0},"#
                    + #"{"name":"broccoli","amount":1,"unit":"cup","grams":90,"confidence":0.8,"calories_kcal":31,"protein_g":2.5,"carbs_g":6,"#
                    + #""fat_g":0.3,"fiber_g":2.4,"sugars_g":1.5,"saturated_fat_g":0,"sodium_mg":30,"alcohol_g":0}]}"#
            )
            // The profile change reaches the meals service as an event; until then an analysis is scored for the old diet.
            var meal = try await stack.analyzePhoto(mealType: "dinner", token: ana.token)
            let deadline = ContinuousClock.now + .seconds(30)
            while meal.dietScore.diet != "keto" && ContinuousClock.now < deadline {
                try await stack.expect(.noContent, .delete, "/api/meals/\(meal.id.uuidString.lowercased())", token: ana.token)
                try await Task.sleep(for: .milliseconds(200))
                meal = try await stack.analyzePhoto(mealType: "dinner", token: ana.token)
            }
            let mealPath = "/api/meals/\(meal.id.uuidString.lowercased())"
            #expect(meal.dietScore.diet == "keto" && (0...100).contains(meal.dietScore.score) && !meal.dietScore.explanation.isEmpty)
            #expect(meal.origin == "photo" && meal.mealType == "dinner" && !meal.isConsumed && meal.items.count == 2 && meal.photoUrl != nil)
            #expect(meal.items.allSatisfy { (0...100).contains($0.healthScore.score) && !$0.healthScore.rating.isEmpty })

            let consumed = try await stack.expect(.ok, .post, "\(mealPath)/consume", json: #"{"notes":"with lemon"}"#, token: ana.token)
                .decoded(MealAnswer.self)
            #expect(consumed.isConsumed && consumed.notes == "with lemon")
            let edited = try await stack.expect(
                .ok, .put, mealPath, json: #"{"title":"Salmon, broccoli and butter","items":[\#(TrendsPipelineTests.item(calories: 500))]}"#,
                token: ana.token
            ).decoded(MealAnswer.self)
            #expect(edited.edited && edited.version > consumed.version && edited.totals.calories == 500 && edited.isConsumed)

            try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"weight":82.4}"#, token: ana.token)
            try await stack.expect(.created, .post, "/api/metrics/ketones", json: #"{"level":1.6}"#, token: ana.token)
            let daily = try await stack.expect(.ok, .get, "/api/metrics/daily?days=7", token: ana.token).decoded(DailyList.self)
            #expect(daily.entries.last?.weight == 82.4 && daily.entries.last?.ketones == 1.6 && daily.entries.last?.inKetosis == true)

            let trends = try await stack.gateway.eventually("/api/trends?period=7d", token: ana.token, as: TrendsReport.self) {
                $0.days.last?.calories == 500 && $0.ketones.count == 1 && $0.weight.entries.count == 1
            }
            #expect(trends.days.count == 7 && trends.days.last?.date.description == "2026-03-10")
            #expect(trends.days.last?.calories == 500 && trends.days.last?.mealsConsumed == 1 && trends.goal.daysLogged == 1)
            #expect(trends.ketones.first?.level == 1.6 && trends.weight.entries.last?.weight == 82.4)
            #expect(trends.bestMeals.map(\.mealId) == [meal.id])

            let link = try await share(meal.id, json: #"{"expiresInDays":1,"showDisplayName":true}"#, stack: stack, token: ana.token)
            #expect(link.url.hasPrefix("\(FullStack.shareBaseURL)/shared/"))
            let view = try await stack.gateway.eventually("/api/share/\(link.token)", token: nil, as: SharedMealAnswer.self) {
                $0.meal.totals.calories == 500
            }
            #expect(view.meal.name == "Salmon, broccoli and butter" && view.meal.notes == "with lemon" && view.meal.dietScore.diet == "keto")
            #expect(view.sharedBy == "Ana")
            let page = try await stack.gateway.call(.get, "/shared/\(link.token)")
            #expect(page.status == .ok && String(buffer: page.body).contains("Salmon, broccoli and butter"))

            stack.clock.advance(by: 86_401)
            let expired = try await stack.gateway.call(.get, "/api/share/\(link.token)")
            #expect(expired.status == .gone && expired.errorCode == "share_expired")

            try await stack.checkEvents(of: [ana.id], covering: [.userProfileUpdated, .mealAnalyzed, .mealConsumed, .weightLogged])
        }
    }

    @Test("NutritionAI dashboard (001): stats for today, this week and all time, then logout")
    func dashboard() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let ben = try await stack.signUp("Ben", form: .name)
            _ = try await stack.logMeal("Omelette", calories: 600, mealType: "breakfast", token: ben.token)
            _ = try await stack.logMeal("Soup", calories: 400, mealType: "lunch", eatenAt: "2026-03-09T12:00:00Z", token: ben.token)
            _ = try await stack.logMeal("Pasta", calories: 800, mealType: "dinner", eatenAt: "2026-03-01T19:00:00Z", token: ben.token)
            let scanned = try await stack.analyzePhotoLeavingScanned(token: ben.token)
            #expect(!scanned.isConsumed)

            let stats = try await stack.gateway.eventually("/api/user/stats", token: ben.token, as: UserStatsReport.self) {
                $0.allTime.mealsConsumed == 3 && $0.allTime.mealsScanned == 1
            }
            #expect(stats.today.mealsConsumed == 1 && stats.today.totals.calories == 600 && stats.today.from?.description == "2026-03-10")
            #expect(stats.week.from?.description == "2026-03-09" && stats.week.mealsConsumed == 2 && stats.week.totals.calories == 1000)
            #expect(stats.allTime.mealsConsumed == 3 && stats.allTime.totals.calories == 1800 && stats.allTime.daysLogged == 3)
            #expect(stats.allTime.averageCaloriesPerDay == 600 && stats.currentStreak == 2)

            try await stack.expect(.noContent, .post, "/api/auth/logout", token: ben.token)
            let ended = try await stack.gateway.call(.get, "/api/auth/me", token: ben.token)
            #expect(ended.isSessionEndedRefusal)
            let refresh = try await stack.gateway.call(.post, "/api/auth/refresh", json: #"{"refreshToken":"\#(ben.refreshToken)"}"#)
            #expect(refresh.status == .unauthorized)

            try await stack.checkEvents(of: [ben.id], covering: [.mealAnalyzed, .mealConsumed])
        }
    }

    @Test("FitAI (002): goals, manual entries by meal type, a daily summary with the goal achieved, the calendar")
    func fitAI() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let cy = try await stack.signUp("Cy", form: .emailAndPasswordOnly)
            let goals =
                #"{"dailyCalorieGoal":2000,"proteinGoalGrams":150,"carbsGoalGrams":200,"fatGoalGrams":67,"targetWeight":75,"#
                + #""calorieBalanceGoal":-500}"#
            try await stack.expect(.ok, .put, "/api/users/profile", json: goals, token: cy.token)
            for (type, calories) in [("breakfast", 500.0), ("lunch", 700), ("dinner", 600), ("snack", 200)] {
                let meal = try await stack.logMeal(type.capitalized, calories: calories, mealType: type, token: cy.token)
                #expect(meal.mealType == type && meal.isConsumed)
            }
            _ = try await stack.logMeal("Late lunch", calories: 1000, mealType: "lunch", eatenAt: "2026-03-05T13:00:00Z", token: cy.token)

            let today = try await stack.gateway.eventually("/api/history/2026-03-10", token: cy.token, as: DayHistory.self) {
                $0.meals.count == 4 && $0.summary.goalMet != nil
            }
            #expect(Set(today.meals.compactMap(\.mealType)) == ["breakfast", "lunch", "dinner", "snack"])
            #expect(today.summary.calories == 2000 && today.summary.goalStatus == .met && today.summary.goalMet == true)
            #expect(today.summary.caloriesRemaining == 0)

            let calendar = try await stack.gateway.eventually("/api/calendar?month=2026-03", token: cy.token, as: DaysReport.self) {
                $0.goal.daysLogged == 2
            }
            #expect(calendar.from.description == "2026-03-01" && calendar.to.description == "2026-03-10")
            #expect(calendar.days[9].goalStatus == .met && calendar.days[4].goalStatus == .under && calendar.days[0].goalStatus == .notLogged)
            #expect(calendar.goal.daysMet == 1 && calendar.goal.achievementRate == 0.5)
            #expect(calendar.averages?.calories == 1500)

            try await stack.checkEvents(of: [cy.id], covering: [.userProfileUpdated, .mealAnalyzed, .mealConsumed])
        }
    }

    @Test("CountMe (003): password reset, change of password, and account deletion removing the user from every service")
    func countMe() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let dee = try await stack.signUp("Dee", form: .emailAndPasswordOnly)
            let stays = try await stack.signUp("Stays")
            let meal = try await stack.logMeal("Toast", calories: 300, token: dee.token)
            _ = try await stack.logMeal("Rice", calories: 300, token: stays.token)
            try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"weight":70}"#, token: stays.token)
            try await stack.expect(.created, .post, "/api/metrics/weight", json: #"{"weight":64}"#, token: dee.token)
            try await stack.expect(
                .created, .post, "/api/custom-meals", json: #"{"name":"Usual breakfast","items":[\#(TrendsPipelineTests.item(calories: 350))]}"#,
                token: dee.token)
            let link = try await share(meal.id, stack: stack, token: dee.token)
            // A product each: the deleted user's stays for everyone, without its author.
            let product = #"{"barcode":"%@","name":"Oat drink","per100ml":{"calories":46,"protein":1,"carbs":6.7,"fat":1.5}}"#
            let deesProduct = try await stack.expect(
                .created, .post, "/api/foods/products", json: product.replacingOccurrences(of: "%@", with: "4006381333931"), token: dee.token)
            try await stack.expect(
                .created, .post, "/api/foods/products", json: product.replacingOccurrences(of: "%@", with: "96385074"), token: stays.token)

            try await stack.expect(.accepted, .post, "/api/auth/password-reset", json: #"{"email":"\#(dee.email)"}"#, token: nil)
            let resetToken = try #require(try await mailedResetToken(in: stack.mailDirectory, for: dee.email))
            try await stack.expect(
                .noContent, .post, "/api/auth/password-reset/confirm", json: #"{"token":"\#(resetToken)","newPassword":"reset and renewed"}"#,
                token: nil)
            #expect(try await stack.gateway.login(email: dee.email, password: Self.password).status == .unauthorized)
            var token = try await stack.signIn(dee, password: "reset and renewed")

            try await stack.expect(
                .noContent, .put, "/api/auth/password", json: #"{"currentPassword":"reset and renewed","newPassword":"changed once more"}"#,
                token: token)
            token = try await stack.signIn(dee, password: "changed once more")

            // Every service holds rows about Dee before the deletion (the events take a moment to reach the read models).
            for (service, database) in stack.databases.sorted(by: { $0.key < $1.key }) {
                let held = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                    try await rowsAbout(dee.id, client: database).values.reduce(0, +) > 0
                }
                #expect(held, "the \(service) schema held nothing about Dee before the deletion: its purge would prove nothing")
            }
            try await stack.expect(.noContent, .delete, "/api/users/me", json: #"{"password":"changed once more"}"#, token: token)
            #expect(try await stack.gateway.login(email: dee.email, password: "changed once more").status == .unauthorized)
            let purged = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                var total = 0
                for (_, database) in stack.databases { total += try await rowsAbout(dee.id, client: database).values.reduce(0, +) }
                return total == 0
            }
            for (service, database) in stack.databases.sorted(by: { $0.key < $1.key }) {
                let left = try await rowsAbout(dee.id, client: database).filter { $0.value > 0 }
                #expect(purged && left.isEmpty, "the \(service) schema still holds the deleted user: \(left)")
                let kept = try await rowsAbout(stays.id, client: database).values.reduce(0, +)
                #expect(kept > 0, "the \(service) schema lost another user's data")
            }
            let productId = try #require(deesProduct.object["id"] as? String)
            let kept = try await stack.expect(.ok, .get, "/api/foods/\(productId)", token: stays.token)
            #expect(kept.object["mine"] as? Bool == false && kept.object["source"] as? String == "community")
            let link404 = try await stack.gateway.call(.get, "/api/share/\(link.token)")
            #expect(link404.status == .notFound || link404.status == .gone, "the deleted user's link answered \(link404.status)")

            try await stack.checkEvents(of: [dee.id], covering: [.userDeleted, .mealConsumed, .weightLogged])
        }
    }

    @Test("MacroLog (004): analysis into scored items, 7-day progress met at 90-110%, and a streak day by day to its first achievement")
    func macroLog() async throws {
        try await FullStack.run(start: Self.start) { stack in
            let eve = try await stack.signUp("Eve")
            try await stack.expect(.ok, .put, "/api/users/profile", json: #"{"dailyCalorieGoal":2000}"#, token: eve.token)
            // One day at a time, on the clock: the calories of each day put it just under, at the edges of, and over the goal.
            let days: [Double] = [1790, 1800, 2000, 2200, 2210, 1950]
            var token = eve.token
            for (index, calories) in days.enumerated() {
                _ = try await stack.logMeal("Day \(index + 1)", calories: calories, token: token)
                let streak = try await stack.gateway.eventually("/api/achievements", token: token, as: AchievementsReport.self) {
                    $0.currentStreak == index + 1
                }
                #expect(streak.currentStreak == index + 1 && streak.achievements.first?.unlocked == false)
                stack.clock.advance(by: 86_400)
                token = try await stack.signIn(eve)
            }

            // The seventh day: a written meal analysed into scored items, consumed, topped up to the goal.
            let analyzed = try await stack.expect(
                .created, .post, "/api/analyze", json: #"{"text":"2 eggs, a slice of whole wheat toast and 200 ml orange juice"}"#, token: token
            ).decoded(MealAnswer.self)
            #expect(analyzed.items.count == 3)
            for item in analyzed.items {
                #expect(item.grams > 0 && !item.reason.isEmpty && !item.encouragement.isEmpty && !item.healthScore.rating.isEmpty)
                #expect(item.healthScore.nutrientDensity != nil && item.healthScore.processing != nil && item.healthScore.goalAlignment != nil)
            }
            try await stack.expect(.ok, .post, "/api/meals/\(analyzed.id.uuidString.lowercased())/consume", token: token)
            _ = try await stack.logMeal("Top-up", calories: 2000 - analyzed.totals.calories, token: token)

            let unlocked = try await stack.gateway.eventually("/api/achievements", token: token, as: AchievementsReport.self) {
                $0.currentStreak == 7
            }
            #expect(unlocked.achievements.first?.unlocked == true && unlocked.achievements.first?.unlockedOn?.description == "2026-03-16")
            #expect(unlocked.achievements.first?.key == "week_warrior" && unlocked.achievements.first?.name == "Week Warrior")
            #expect(unlocked.longestStreak == 7 && unlocked.achievements.dropFirst().allSatisfy { !$0.unlocked })

            let progress = try await stack.gateway.eventually("/api/progress?days=7", token: token, as: DaysReport.self) {
                $0.days.last?.calories == 2000
            }
            #expect(progress.from.description == "2026-03-10" && progress.to.description == "2026-03-16")
            #expect(progress.days.map(\.goalStatus) == [.under, .met, .met, .met, .over, .met, .met])
            #expect(progress.goal.daysMet == 5 && progress.goal.daysLogged == 7)

            let history = try await stack.expect(.ok, .get, "/api/history/2026-03-16", token: token).decoded(DayHistory.self)
            #expect(history.meals.count == 2 && history.summary.goalMet == true)

            try await stack.checkEvents(of: [eve.id], covering: [.userProfileUpdated, .mealAnalyzed, .mealConsumed])
        }
    }

    /// Shares `mealId` once the sharing service has seen it, and returns the link.
    func share(_ mealId: UUID, json: String = "{}", stack: FullStack, token: String) async throws -> LinkAnswer {
        let response = try await stack.gateway.shareWhenReady(mealId, json: json, token: token)
        #expect(response.status == .created, "share answered \(response.status): \(String(buffer: response.body))")
        return try response.decoded(LinkAnswer.self)
    }
}

extension FullStack {
    /// A photo analysed and left unconsumed (scanned).
    func analyzePhotoLeavingScanned(token: String) async throws -> MealAnswer {
        vision.script(
            #"{"items":[{"name":"apple","amount":1,"unit":"medium","grams":180,"confidence":0.9,"calories_kcal":95,"protein_g":0.5,"carbs_g":25,"#
                + #""fat_g":0.3,"fiber_g":4.4,"sugars_g":19,"saturated_fat_g":0,"sodium_mg":2,"alcohol_g":0}]}"#
        )
        return try await analyzePhoto(mealType: "snack", token: token)
    }
}
