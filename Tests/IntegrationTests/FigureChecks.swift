import Foundation
import ServiceDefaults
import Testing

/// What every dashboard figure about the days around one "today" must say, given the scenario's truth: each route read
/// through `read` (the trends routes directly, or the gateway), each figure compared with the truth, so that the views
/// also agree with each other.
struct FigureChecks {
    let scenario: CalendarScenario
    let today: CalendarDate
    /// Whether to open the history of days with entries spread over the whole history too (they read the same whatever
    /// day is today: one of a scenario's checks opens them).
    var opensPastDays = false
    /// The answer body of `GET uri` as the scenario's user.
    let read: @Sendable (String) async throws -> Data

    /// One day as every dashboard route shows it (the fields the truth knows).
    struct DayFigures: Decodable, Equatable {
        var date: String
        var mealsConsumed: Int
        var mealsScanned: Int
        var calories: Double
        var proteinGrams: Double
        var waterMillilitres: Int
    }

    struct Span: Decodable {
        struct Totals: Decodable {
            var calories: Double
            var proteinGrams: Double
        }
        var from: String?
        var to: String
        var mealsConsumed: Int
        var mealsScanned: Int
        var daysLogged: Int
        var totals: Totals
    }

    struct Stats: Decodable {
        var today: Span
        var week: Span
        var allTime: Span
        var currentStreak: Int
        var longestStreak: Int
    }

    struct Days: Decodable {
        var from: String
        var to: String
        var days: [DayFigures]
    }

    struct History: Decodable {
        struct Meal: Decodable {
            var mealId: UUID
            var isConsumed: Bool
        }
        var date: String
        var summary: DayFigures
        var meals: [Meal]
    }

    struct Achievements: Decodable {
        var currentStreak: Int
        var longestStreak: Int
    }

    func run() async throws {
        try await stats()
        for day in daysToOpen() { try await history(of: day) }
        try await summaries()
        for period in [7, 30, 90] { try await days("/api/trends?period=\(period)d", expectedFrom: today.adding(days: 1 - period), to: today) }
        try await days("/api/progress?days=90", expectedFrom: today.adding(days: -89), to: today)
        try await calendar(month: today)
        try await calendar(month: today.adding(days: 2))
        let achievements = try decode(Achievements.self, try await read("/api/achievements"))
        let streaks = scenario.streaks(today: today)
        #expect(achievements.currentStreak == streaks.current && achievements.longestStreak == streaks.longest, "\(context) achievements")
    }

    /// `GET /api/user/stats`: today, the week that starts on the profile's weekStart, all time, the streaks.
    private func stats() async throws {
        let stats = try decode(Stats.self, try await read("/api/user/stats"))
        let weekFirst = today.startOfWeek(on: scenario.weekStart)
        check(stats.today, equals: scenario.sum(over: today...today), "stats.today")
        #expect(
            stats.today.from == today.description && stats.today.to == today.description,
            "\(context) stats.today spans \(stats.today.from ?? "-")...\(stats.today.to)")
        check(stats.week, equals: scenario.sum(over: weekFirst...weekFirst.adding(days: 6)), "stats.week")
        #expect(
            stats.week.from == weekFirst.description && stats.week.to == weekFirst.adding(days: 6).description,
            "\(context) stats.week spans \(stats.week.from ?? "-")...\(stats.week.to), the week from \(scenario.weekStart) is \(weekFirst)")
        check(stats.allTime, equals: scenario.sum(), "stats.allTime")
        let streaks = scenario.streaks(today: today)
        #expect(
            stats.currentStreak == streaks.current && stats.longestStreak == streaks.longest,
            "\(context) stats' streaks \(stats.currentStreak)/\(stats.longestStreak), truth \(streaks)")
    }

    private func check(_ span: Span, equals truth: (consumed: Int, scanned: Int, calories: Int, protein: Int, daysLogged: Int), _ name: String) {
        #expect(
            span.mealsConsumed == truth.consumed && span.mealsScanned == truth.scanned && span.daysLogged == truth.daysLogged
                && span.totals.calories == Double(truth.calories) && span.totals.proteinGrams == Double(truth.protein),
            "\(context) \(name): \(span.mealsConsumed) consumed, \(span.mealsScanned) scanned, \(span.daysLogged) days, \(span.totals.calories) kcal; truth \(truth)"
        )
    }

    /// `GET /api/history/{day}`: the summary and the meals of the day.
    private func history(of day: CalendarDate) async throws {
        let history = try decode(History.self, try await read("/api/history/\(day)"))
        check(history.summary, on: day, "history")
        let truth = scenario.meals.values.filter { !$0.deleted && $0.day == day }
        #expect(Set(history.meals.map(\.mealId)) == Set(truth.map(\.id)), "\(context) history of \(day) lists other meals than the truth's")
        #expect(history.meals.filter(\.isConsumed).count == truth.filter(\.consumed).count, "\(context) history of \(day): consumed meals")
    }

    /// `GET /api/summaries` from 40 days before today to two days after: every day listed up to today, and later days
    /// only with entries (a user who moved west), each as the truth says.
    private func summaries() async throws {
        let from = today.adding(days: -40), to = today.adding(days: 2)
        let answer = try decode(Days.self, try await read("/api/summaries?from=\(from)&to=\(to)"))
        let lastEntry = scenario.days.keys.filter { $0 > today && $0 <= to }.max()
        let shownTo = max(today, lastEntry ?? today)
        #expect(
            answer.from == from.description && answer.to == shownTo.description,
            "\(context) summaries span \(answer.from)...\(answer.to), expected \(from)...\(shownTo)")
        try checkDays(answer, from: from, to: shownTo, "summaries")
    }

    /// A run of days (trends, progress) ending today.
    private func days(_ uri: String, expectedFrom from: CalendarDate, to: CalendarDate) async throws {
        let answer = try decode(Days.self, try await read(uri))
        #expect(answer.from == from.description && answer.to == to.description, "\(context) \(uri) spans \(answer.from)...\(answer.to)")
        try checkDays(answer, from: from, to: to, uri)
    }

    /// `GET /api/calendar?month=` of the month holding `day`: its days up to today, and later ones with entries.
    private func calendar(month day: CalendarDate) async throws {
        let first = day.startOfMonth
        let month = String(first.description.prefix(7))
        let monthEnd = first.adding(days: first.daysInMonth - 1)
        let lastEntry = scenario.days.keys.filter { $0 > today && $0 <= monthEnd }.max()
        guard first <= max(today, lastEntry ?? today) else { return }
        let answer = try decode(Days.self, try await read("/api/calendar?month=\(month)"))
        let to = min(monthEnd, max(today, lastEntry ?? today))
        #expect(
            answer.from == first.description && answer.to == to.description,
            "\(context) calendar \(month) spans \(answer.from)...\(answer.to), expected ...\(to)")
        try checkDays(answer, from: first, to: to, "calendar \(month)")
    }

    private func checkDays(_ answer: Days, from: CalendarDate, to: CalendarDate, _ name: String) throws {
        #expect(answer.days.count == from.days(until: to) + 1, "\(context) \(name) lists \(answer.days.count) days")
        for figures in answer.days {
            let day = try #require(CalendarDate(figures.date))
            check(figures, on: day, name)
        }
    }

    /// One day's figures against the truth.
    private func check(_ figures: DayFigures, on day: CalendarDate, _ name: String) {
        let truth = scenario.days[day] ?? CalendarScenario.Day()
        let shown = CalendarScenario.Day(
            consumed: figures.mealsConsumed, scanned: figures.mealsScanned, calories: Int(figures.calories), protein: Int(figures.proteinGrams),
            water: figures.waterMillilitres)
        #expect(figures.date == day.description && shown == truth, "\(context) \(name) on \(day): \(shown), truth \(truth)")
    }

    /// Yesterday, today and the two days an entry can be ahead of today; with `opensPastDays`, a few days with entries.
    private func daysToOpen() -> [CalendarDate] {
        let near = (-1...2).map { today.adding(days: $0) }
        let logged = scenario.days.keys.sorted()
        let spread = opensPastDays ? stride(from: 0, to: logged.count, by: max(1, logged.count / 4)).map { logged[$0] } : []
        return Array(Set(near + spread)).sorted()
    }

    private var context: String {
        "seed \(scenario.seed) (\(scenario.firstZone.identifier) -> \(scenario.zone.identifier), week from \(scenario.weekStart), today \(today)):"
    }

    private func decode<Answer: Decodable>(_ type: Answer.Type, _ data: Data) throws -> Answer {
        try JSONDecoder().decode(type, from: data)
    }
}
