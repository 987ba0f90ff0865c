import ContractTesting
import EventContracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceDefaults
import Testing

@testable import TrendsService
@testable import TrendsTesting

/// The trends routes at the router, on an in-memory store: every route's answer and refusals, the user's "today",
/// and that ready reports are served without reading the read models again until the user's data changes. Every
/// answer is checked against the OpenAPI document.
@Suite("Trends routes on an in-memory store")
struct TrendsRoutesTests {
    static let now = Date(timeIntervalSince1970: 1_778_414_400)  // 2026-05-10T12:00:00Z
    static let today = CalendarDate("2026-05-10")!
    let userId = UUID()
    let store = InMemoryTrendsStore()

    func withRoutes(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = ServiceRuntime.makeRouter(service: "trends", checks: [])
        TrendsRoutes(store: store, reportCacheUsers: 100, photos: nil, now: { Self.now }).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let problems = try await ContractCheckingClient.problems(of: client, body)
            #expect(problems.isEmpty, "answers the OpenAPI document does not describe: \(problems)")
        }
    }

    var caller: HTTPFields {
        [CallerIdentity.userIdHeader: userId.uuidString, CallerIdentity.sessionIdHeader: UUID().uuidString]
    }

    func get(_ uri: String, _ client: any TestClientProtocol) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let response = try await client.execute(uri: uri, method: .get, headers: caller)
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    /// A consumed day of `calories` in `meals` meals, `daysAgo` before today.
    func logDay(daysAgo: Int, calories: Double, meals: Int = 2, water: Int = 0) {
        store.record(
            DaySummary(
                date: Self.today.adding(days: -daysAgo), consumedCount: meals, scannedCount: 0, calories: calories, proteinGrams: calories * 0.05,
                carbsGrams: calories * 0.1, fatGrams: calories * 0.04, fiberGrams: 10, dietScore: 70, healthScore: 65,
                waterMillilitres: water), of: userId)
    }

    /// A consumed meal `daysAgo` before today with `dietScore`.
    @discardableResult
    func logMeal(_ title: String, daysAgo: Int = 0, dietScore: Int, consumed: Bool = true) -> MealSnapshot {
        let totals = NutrientTotals(calories: 500, proteinGrams: 30, carbsGrams: 50, fatGrams: 20, fiberGrams: 8)
        let meal = MealSnapshot(
            mealId: UUID(), userId: userId, title: title, origin: "text", mealType: "lunch", captureKind: "full_meal",
            eatenAt: Self.now.addingTimeInterval(Double(-daysAgo) * 86_400 - 3600), localDate: Self.today.adding(days: -daysAgo).description,
            timeZone: "UTC", isConsumed: consumed, edited: false, notes: nil, hasPhoto: false,
            items: [
                MealSnapshotItem(
                    name: title, amount: 1, unit: "plate", grams: 300, nutrients: totals, healthScore: 60, healthRating: "good", source: "estimate")
            ],
            totals: totals, healthScore: 60, healthRating: "good", dietPreference: "balanced", dietScore: dietScore,
            dietBand: dietScore >= 70 ? "green" : "red", dietExplanation: "Scored.", version: 1)
        store.record(meal)
        return meal
    }

    func setGoal(_ calories: Int, zone: String = "UTC") {
        var profile = TrendsProfile(timeZone: TimeZone(identifier: zone)!, weightUnit: "kg", dailyCalorieGoal: calories)
        profile.goals = GoalHistory([GoalHistory.Period(from: Self.today.adding(days: -400), dailyCalorieGoal: calories)])
        store.setProfile(profile, of: userId)
    }

    @Test("stats count today, this week and all time with the streaks; a repeated read is served ready until the data changes")
    func statsAndReadyReports() async throws {
        logDay(daysAgo: 0, calories: 1_800, meals: 3)
        logDay(daysAgo: 1, calories: 2_100)
        logDay(daysAgo: 10, calories: 1_500, meals: 1)
        try await withRoutes { client in
            let first = try await get("/api/user/stats", client)
            #expect(first.status == .ok)
            #expect((first.json["today"] as? [String: Any])?["mealsConsumed"] as? Int == 3)
            #expect((first.json["allTime"] as? [String: Any])?["mealsConsumed"] as? Int == 6)
            #expect((first.json["allTime"] as? [String: Any])?["daysLogged"] as? Int == 3)
            #expect(first.json["currentStreak"] as? Int == 2)

            let readsAfterFirst = store.reads
            let again = try await get("/api/user/stats", client)
            #expect(NSDictionary(dictionary: again.json) == NSDictionary(dictionary: first.json))
            #expect(store.reads == readsAfterFirst, "the ready report is served without reading the read models")

            logDay(daysAgo: 2, calories: 1_900)
            let changed = try await get("/api/user/stats", client)
            #expect(changed.json["currentStreak"] as? Int == 3)
            #expect(store.reads > readsAfterFirst)
        }
    }

    @Test("progress lists every day of the range with its goal status; days outside 1 to 90 is 422")
    func progress() async throws {
        setGoal(2_000)
        logDay(daysAgo: 0, calories: 1_950)
        logDay(daysAgo: 2, calories: 2_600)
        try await withRoutes { client in
            let answer = try await get("/api/progress?days=3", client)
            #expect(answer.status == .ok)
            #expect(answer.json["from"] as? String == "2026-05-08" && answer.json["to"] as? String == "2026-05-10")
            let days = try #require(answer.json["days"] as? [[String: Any]])
            #expect(days.map { $0["date"] as? String } == ["2026-05-08", "2026-05-09", "2026-05-10"])
            #expect(days.map { $0["mealsConsumed"] as? Int } == [2, 0, 2])
            #expect(days[0]["goalMet"] as? Bool == false && days[2]["goalMet"] as? Bool == true)
            for bad in ["0", "91", "week"] {
                let refused = try await get("/api/progress?days=\(bad)", client)
                #expect(refused.status == .unprocessableContent, "days=\(bad)")
                #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])?["days"] != nil)
            }
        }
    }

    @Test("today is the user's local day: late on the 10th in UTC is already the 11th in Auckland")
    func localToday() async throws {
        setGoal(2_000, zone: "Pacific/Auckland")
        try await withRoutes { client in
            let answer = try await get("/api/progress?days=1", client)
            #expect(answer.json["from"] as? String == "2026-05-11" && answer.json["to"] as? String == "2026-05-11")
        }
    }

    @Test("the calendar lists the month's days up to today; a malformed or future month is 422")
    func calendar() async throws {
        logDay(daysAgo: 3, calories: 1_700)
        try await withRoutes { client in
            let this = try await get("/api/calendar", client)
            #expect(this.status == .ok)
            #expect((this.json["days"] as? [Any])?.count == 10)
            let april = try await get("/api/calendar?month=2026-04", client)
            #expect((april.json["days"] as? [Any])?.count == 30)
            for bad in ["2026-13", "2026-5", "may", "2026-06"] {
                #expect(try await get("/api/calendar?month=\(bad)", client).status == .unprocessableContent, "month=\(bad)")
            }
        }
    }

    @Test("summaries of a range average the logged days; a range missing a bound, reversed, in the future or too long is 422")
    func summaries() async throws {
        logDay(daysAgo: 1, calories: 2_000)
        logDay(daysAgo: 3, calories: 1_000)
        try await withRoutes { client in
            let answer = try await get("/api/summaries?from=2026-05-06&to=2026-05-20", client)
            #expect(answer.status == .ok)
            #expect(answer.json["to"] as? String == "2026-05-10", "cut at today")
            #expect((answer.json["days"] as? [Any])?.count == 5)
            #expect((answer.json["averages"] as? [String: Any])?["calories"] as? Double == 1_500)
            for bad in [
                "from=2026-05-01", "to=2026-05-01", "from=2026-05-09&to=2026-05-01", "from=2026-06-01&to=2026-06-02",
                "from=2025-01-01&to=2026-05-01", "from=yesterday&to=2026-05-01",
            ] {
                #expect(try await get("/api/summaries?\(bad)", client).status == .unprocessableContent, "\(bad)")
            }
        }
    }

    @Test("a day's history has its summary and every meal, consumed and scanned, in the order eaten; a path not a date is 422")
    func history() async throws {
        logDay(daysAgo: 1, calories: 1_000)
        let lunch = logMeal("Lentil soup", daysAgo: 1, dietScore: 80)
        let scanned = logMeal("Cookie", daysAgo: 1, dietScore: 20, consumed: false)
        logMeal("Today's toast", daysAgo: 0, dietScore: 50)
        try await withRoutes { client in
            let answer = try await get("/api/history/2026-05-09", client)
            #expect(answer.status == .ok)
            let meals = try #require(answer.json["meals"] as? [[String: Any]])
            #expect(Set(meals.compactMap { $0["mealId"] as? String }) == [lunch.mealId.lowercasedString, scanned.mealId.lowercasedString])
            #expect((answer.json["summary"] as? [String: Any])?["calories"] as? Double == 1_000)
            let empty = try await get("/api/history/2026-01-01", client)
            #expect(empty.status == .ok && (empty.json["meals"] as? [Any])?.isEmpty == true)
            for impossible in ["yesterday", "2026-02-30"] {
                let answer = try await get("/api/history/\(impossible)", client)
                #expect(answer.status == .unprocessableContent, "\(impossible)")
                #expect((answer.json["error"] as? [String: Any])?["details"] as? [String: String] == ["date": "must be a date as YYYY-MM-DD"])
            }
        }
    }

    @Test("achievements unlock at 7 days of streak and show progress toward the rest")
    func achievements() async throws {
        for daysAgo in 0..<8 { logDay(daysAgo: daysAgo, calories: 1_800) }
        try await withRoutes { client in
            let answer = try await get("/api/achievements", client)
            #expect(answer.status == .ok)
            #expect(answer.json["currentStreak"] as? Int == 8)
            let list = try #require(answer.json["achievements"] as? [[String: Any]])
            #expect(list.map { $0["days"] as? Int } == [7, 21, 35, 50, 100, 365])
            #expect(list.map { $0["unlocked"] as? Bool } == [true, false, false, false, false, false])
        }
    }

    @Test("the trends report ranks the period's best and worst consumed meals and refuses an unknown period with 422")
    func trends() async throws {
        logDay(daysAgo: 0, calories: 1_500)
        logMeal("Salad", dietScore: 90)
        logMeal("Fries", dietScore: 15)
        logMeal("Pasta", daysAgo: 1, dietScore: 55)
        logMeal("Donut", dietScore: 5, consumed: false)
        logMeal("Old feast", daysAgo: 40, dietScore: 99)
        store.record(BodyMetricsDay(date: Self.today.adding(days: -1), weightKg: 80.2, ketones: nil), of: userId)
        try await withRoutes { client in
            let answer = try await get("/api/trends?period=30d", client)
            #expect(answer.status == .ok)
            #expect((answer.json["days"] as? [Any])?.count == 30)
            #expect((answer.json["bestMeals"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Salad", "Pasta", "Fries"])
            #expect((answer.json["worstMeals"] as? [[String: Any]])?.first?["title"] as? String == "Fries")
            #expect(((answer.json["weight"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
            let refused = try await get("/api/trends?period=1y", client)
            #expect(refused.status == .unprocessableContent)
        }
    }

    @Test("the expenditure estimate answers from the formula without a log, and from the log once it has weeks of data")
    func expenditure() async throws {
        var profile = TrendsProfile(
            timeZone: TimeZone(identifier: "UTC")!, weightUnit: "kg", dailyCalorieGoal: 2_000, heightCm: 180,
            birthDate: CalendarDate("1990-01-01"), sex: "male", activityLevel: "moderate")
        profile.goals = GoalHistory([GoalHistory.Period(from: Self.today.adding(days: -100), dailyCalorieGoal: 2_000)])
        store.setProfile(profile, of: userId)
        store.record(BodyMetricsDay(date: Self.today.adding(days: -30), weightKg: 82, ketones: nil), of: userId)
        try await withRoutes { client in
            let formula = try await get("/api/trends/expenditure", client)
            #expect(formula.status == .ok)
            #expect(formula.json["method"] as? String == "formula")
            #expect((formula.json["dailyExpenditure"] as? Double).map { $0 > 1_500 && $0 < 4_000 } == true, "\(formula.json)")

            for daysAgo in 1...28 {
                logDay(daysAgo: daysAgo, calories: 2_400)
                store.record(
                    BodyMetricsDay(date: Self.today.adding(days: -daysAgo), weightKg: 82 - Double(28 - daysAgo) * 0.01, ketones: nil), of: userId)
            }
            let logged = try await get("/api/trends/expenditure", client)
            #expect(logged.json["method"] as? String == "energy_balance", "weeks of intake and weigh-ins are estimated from")
        }
    }

    @Test("every route refuses a request without the caller's identity with 401")
    func anonymous() async throws {
        try await withRoutes { client in
            for path in [
                "/api/trends", "/api/trends/expenditure", "/api/user/stats", "/api/progress", "/api/history/2026-05-10", "/api/calendar",
                "/api/summaries?from=2026-05-01&to=2026-05-02", "/api/achievements",
            ] {
                let response = try await client.execute(uri: path, method: .get, headers: [:])
                #expect(response.status == .unauthorized, "\(path)")
            }
        }
    }
}
