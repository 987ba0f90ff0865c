import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceDefaults
import TestSupport
import Testing

@testable import TrendsService
@testable import TrendsTesting

/// The trends routes at the router, on an in-memory store: every route's answer and refusals, the user's "today",
/// and that ready reports are served without reading the read models again until the user's data changes. Every test
/// about days runs with each of `TestToday.variety` as today (each weekday, UTC+14, UTC-11, a week with a
/// daylight-saving change), its expectations reckoned with Foundation's calendar in the user's zone.
@Suite("Trends routes on an in-memory store")
struct TrendsRoutesTests {
    @Test(
        "stats count today, the week from the profile's weekStart and all time with the streaks; a repeated read is served ready until the data changes",
        arguments: TestToday.variety, [Weekday.monday, .sunday])
    func statsAndReadyReports(day: TestToday, weekStart: Weekday) async throws {
        let dashboard = TrendsDashboard(day, weekStart: weekStart)
        dashboard.logDay(daysAgo: 0, calories: 1_800, meals: 3)
        dashboard.logDay(daysAgo: 1, calories: 2_100)
        dashboard.logDay(daysAgo: 10, calories: 1_500, meals: 1)
        // Yesterday is in this week unless today is the week's first day; ten days ago never is.
        let intoWeek = day.daysIntoWeek(startingOn: weekStart.isoNumber)
        let yesterdayInWeek = intoWeek >= 1
        try await dashboard.withRoutes { client in
            let first = try await dashboard.get("/api/user/stats", client)
            #expect(first.status == .ok)
            let today = try #require(first.json["today"] as? [String: Any])
            #expect(today["from"] as? String == day.date && today["to"] as? String == day.date)
            #expect(today["mealsConsumed"] as? Int == 3 && today["daysLogged"] as? Int == 1)
            #expect((today["totals"] as? [String: Any])?["calories"] as? Double == 1_800)
            let week = try #require(first.json["week"] as? [String: Any])
            #expect(week["from"] as? String == day.date(daysAgo: intoWeek) && week["to"] as? String == day.date(daysAgo: intoWeek - 6))
            #expect(week["mealsConsumed"] as? Int == (yesterdayInWeek ? 5 : 3), "\(week)")
            #expect(week["daysLogged"] as? Int == (yesterdayInWeek ? 2 : 1), "\(week)")
            #expect((week["totals"] as? [String: Any])?["calories"] as? Double == (yesterdayInWeek ? 3_900 : 1_800))
            let allTime = try #require(first.json["allTime"] as? [String: Any])
            #expect(allTime["mealsConsumed"] as? Int == 6 && allTime["daysLogged"] as? Int == 3)
            #expect(first.json["currentStreak"] as? Int == 2)

            let readsAfterFirst = dashboard.store.reads
            let again = try await dashboard.get("/api/user/stats", client)
            #expect(NSDictionary(dictionary: again.json) == NSDictionary(dictionary: first.json))
            #expect(dashboard.store.reads == readsAfterFirst, "the ready report is served without reading the read models")

            dashboard.logDay(daysAgo: 2, calories: 1_900)
            let changed = try await dashboard.get("/api/user/stats", client)
            #expect(changed.json["currentStreak"] as? Int == 3)
            #expect(dashboard.store.reads > readsAfterFirst)
        }
    }

    @Test("progress lists every day of the range with its goal status; days outside 1 to 90 is 422", arguments: TestToday.variety)
    func progress(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        dashboard.setGoal(2_000)
        dashboard.logDay(daysAgo: 0, calories: 1_950)
        dashboard.logDay(daysAgo: 2, calories: 2_600)
        try await dashboard.withRoutes { client in
            let answer = try await dashboard.get("/api/progress?days=3", client)
            #expect(answer.status == .ok)
            #expect(answer.json["from"] as? String == day.date(daysAgo: 2) && answer.json["to"] as? String == day.date)
            let days = try #require(answer.json["days"] as? [[String: Any]])
            #expect(days.map { $0["date"] as? String } == [day.date(daysAgo: 2), day.date(daysAgo: 1), day.date])
            #expect(days.map { $0["mealsConsumed"] as? Int } == [2, 0, 2])
            #expect(days[0]["goalMet"] as? Bool == false && days[2]["goalMet"] as? Bool == true)
            for bad in ["0", "91", "week"] {
                let refused = try await dashboard.get("/api/progress?days=\(bad)", client)
                #expect(refused.status == .unprocessableContent, "days=\(bad)")
                #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])?["days"] != nil)
            }
        }
    }

    @Test("today is the user's local day, whatever UTC's date is", arguments: TestToday.variety)
    func localToday(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        try await dashboard.withRoutes { client in
            let answer = try await dashboard.get("/api/progress?days=1", client)
            #expect(answer.json["from"] as? String == day.date && answer.json["to"] as? String == day.date)
        }
    }

    @Test("the calendar lists the month's days up to today, a past month whole; a malformed or future month is 422", arguments: TestToday.variety)
    func calendar(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        dashboard.logDay(daysAgo: 0, calories: 1_700)
        try await dashboard.withRoutes { client in
            let this = try await dashboard.get("/api/calendar", client)
            #expect(this.status == .ok)
            let days = try #require(this.json["days"] as? [[String: Any]])
            #expect(days.map { $0["date"] as? String } == day.monthSoFar)
            #expect(days.last?["calories"] as? Double == 1_700, "today's entry is today's")
            let previous = day.month(offset: -1)
            let past = try await dashboard.get("/api/calendar?month=\(previous.name)", client)
            #expect((past.json["days"] as? [Any])?.count == previous.days, "\(previous.name)")
            for bad in ["2026-13", "2026-5", "may", day.month(offset: 1).name] {
                #expect(try await dashboard.get("/api/calendar?month=\(bad)", client).status == .unprocessableContent, "month=\(bad)")
            }
        }
    }

    @Test(
        "summaries of a range average the logged days; a range missing a bound, reversed, in the future or too long is 422",
        arguments: TestToday.variety)
    func summaries(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        dashboard.logDay(daysAgo: 1, calories: 2_000)
        dashboard.logDay(daysAgo: 3, calories: 1_000)
        try await dashboard.withRoutes { client in
            let answer = try await dashboard.get("/api/summaries?from=\(day.date(daysAgo: 4))&to=\(day.date(daysAgo: -10))", client)
            #expect(answer.status == .ok)
            #expect(answer.json["to"] as? String == day.date, "cut at today")
            #expect((answer.json["days"] as? [Any])?.count == 5)
            #expect((answer.json["averages"] as? [String: Any])?["calories"] as? Double == 1_500)
            for bad in [
                "from=\(day.date(daysAgo: 9))", "to=\(day.date(daysAgo: 9))", "from=\(day.date(daysAgo: 1))&to=\(day.date(daysAgo: 9))",
                "from=\(day.date(daysAgo: -22))&to=\(day.date(daysAgo: -23))", "from=\(day.date(daysAgo: 500))&to=\(day.date(daysAgo: 9))",
                "from=yesterday&to=\(day.date(daysAgo: 9))",
            ] {
                #expect(try await dashboard.get("/api/summaries?\(bad)", client).status == .unprocessableContent, "\(bad)")
            }
        }
    }

    @Test(
        "a day's history has its summary and every meal, consumed and scanned, in the order eaten; a path not a date is 422",
        arguments: TestToday.variety)
    func history(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        dashboard.logDay(daysAgo: 1, calories: 1_000)
        let lunch = dashboard.logMeal("Lentil soup", daysAgo: 1, dietScore: 80)
        let scanned = dashboard.logMeal("Cookie", daysAgo: 1, dietScore: 20, consumed: false)
        let toast = dashboard.logMeal("Today's toast", daysAgo: 0, dietScore: 50)
        try await dashboard.withRoutes { client in
            let answer = try await dashboard.get("/api/history/\(day.date(daysAgo: 1))", client)
            #expect(answer.status == .ok)
            let meals = try #require(answer.json["meals"] as? [[String: Any]])
            #expect(Set(meals.compactMap { $0["mealId"] as? String }) == [lunch.mealId.lowercasedString, scanned.mealId.lowercasedString])
            #expect((answer.json["summary"] as? [String: Any])?["calories"] as? Double == 1_000)
            let today = try await dashboard.get("/api/history/\(day.date)", client)
            #expect((today.json["meals"] as? [[String: Any]])?.compactMap { $0["mealId"] as? String } == [toast.mealId.lowercasedString])
            let empty = try await dashboard.get("/api/history/\(day.date(daysAgo: 130))", client)
            #expect(empty.status == .ok && (empty.json["meals"] as? [Any])?.isEmpty == true)
            for impossible in ["yesterday", "2026-02-30"] {
                let answer = try await dashboard.get("/api/history/\(impossible)", client)
                #expect(answer.status == .unprocessableContent, "\(impossible)")
                #expect((answer.json["error"] as? [String: Any])?["details"] as? [String: String] == ["date": "must be a date as YYYY-MM-DD"])
            }
        }
    }

    @Test("achievements unlock at 7 days of streak and show progress toward the rest", arguments: TestToday.variety)
    func achievements(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        for daysAgo in 0..<8 { dashboard.logDay(daysAgo: daysAgo, calories: 1_800) }
        try await dashboard.withRoutes { client in
            let answer = try await dashboard.get("/api/achievements", client)
            #expect(answer.status == .ok)
            #expect(answer.json["currentStreak"] as? Int == 8)
            let list = try #require(answer.json["achievements"] as? [[String: Any]])
            #expect(list.map { $0["days"] as? Int } == [7, 21, 35, 50, 100, 365])
            #expect(list.map { $0["unlocked"] as? Bool } == [true, false, false, false, false, false])
        }
    }

    @Test(
        "the trends report covers the 30 days to today and ranks their best and worst consumed meals; an unknown period is 422",
        arguments: TestToday.variety)
    func trends(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        dashboard.logDay(daysAgo: 0, calories: 1_500)
        dashboard.logMeal("Salad", dietScore: 90)
        dashboard.logMeal("Fries", dietScore: 15)
        dashboard.logMeal("Pasta", daysAgo: 1, dietScore: 55)
        dashboard.logMeal("Donut", dietScore: 5, consumed: false)
        dashboard.logMeal("Old feast", daysAgo: 40, dietScore: 99)
        dashboard.weigh(80.2, daysAgo: 1)
        try await dashboard.withRoutes { client in
            let answer = try await dashboard.get("/api/trends?period=30d", client)
            #expect(answer.status == .ok)
            let days = try #require(answer.json["days"] as? [[String: Any]])
            #expect(days.first?["date"] as? String == day.date(daysAgo: 29) && days.last?["date"] as? String == day.date && days.count == 30)
            #expect((answer.json["bestMeals"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Salad", "Pasta", "Fries"])
            #expect((answer.json["worstMeals"] as? [[String: Any]])?.first?["title"] as? String == "Fries")
            #expect(((answer.json["weight"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
            let refused = try await dashboard.get("/api/trends?period=1y", client)
            #expect(refused.status == .unprocessableContent)
        }
    }

    @Test(
        "the expenditure estimate answers from the formula without a log, and from the log once it has weeks of data",
        arguments: TestToday.variety)
    func expenditure(day: TestToday) async throws {
        let dashboard = TrendsDashboard(day)
        dashboard.setBody()
        dashboard.weigh(82, daysAgo: 30)
        try await dashboard.withRoutes { client in
            let formula = try await dashboard.get("/api/trends/expenditure", client)
            #expect(formula.status == .ok)
            #expect(formula.json["method"] as? String == "formula")
            #expect((formula.json["dailyExpenditure"] as? Double).map { $0 > 1_500 && $0 < 4_000 } == true, "\(formula.json)")

            for daysAgo in 1...28 {
                dashboard.logDay(daysAgo: daysAgo, calories: 2_400)
                dashboard.weigh(82 - Double(28 - daysAgo) * 0.01, daysAgo: daysAgo)
            }
            let logged = try await dashboard.get("/api/trends/expenditure", client)
            #expect(logged.json["method"] as? String == "energy_balance", "weeks of intake and weigh-ins are estimated from")
        }
    }

    /// Day-independent: no answer is read.
    @Test("every route refuses a request without the caller's identity with 401")
    func anonymous() async throws {
        try await TrendsDashboard(TestToday.weekdays[0]).withRoutes { client in
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
