import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import ServiceDefaults
import Testing

/// A few seeded users (`CalendarScenario`) live their history through the gateway on every running service: signed up in
/// one zone, meals logged, edited, moved, unconsumed and deleted by the meals routes, a move to another zone by the
/// profile. Then every dashboard figure of three days as today must say what the scenario's truth says
/// (`FigureChecks`), and so must the views of the other services: the meals list, the export's `meals.csv` and a
/// shared meal's totals. Water and weigh-ins are left to the read-model suite (`FigureConsistencyTests`).
@Suite("Every figure agrees through the gateway", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct FigureConsistencyJourneyTests {
    /// Three seeds of the read-model suite's range that stress the calendar most: a move west across the date line at
    /// the end of the history, a zone with daylight saving, and a 45-minute or half-hour offset.
    static let seeds: [UInt64] = {
        let scenarios = (UInt64(1)...200).map { CalendarScenario(seed: $0) }
        let picks: [(CalendarScenario) -> Bool] = [
            { $0.firstZone.identifier == "Pacific/Kiritimati" && $0.zone.identifier == "Pacific/Pago_Pago" },
            { ["America/New_York", "Australia/Lord_Howe", "Europe/London"].contains($0.zone.identifier) },
            { ["Asia/Kathmandu", "Pacific/Chatham", "Asia/Kolkata", "America/St_Johns"].contains($0.zone.identifier) },
        ]
        var chosen: [CalendarScenario] = []
        for pick in picks {
            // Each one's history ends at least eight days after the last one's week: the clock only moves forward.
            if let next = scenarios.first(where: { scenario in
                pick(scenario) && chosen.allSatisfy { abs($0.nows[0].timeIntervalSince(scenario.nows[0])) > 8 * 86_400 }
            }) {
                chosen.append(next)
            }
        }
        return chosen.sorted { $0.nows[0] < $1.nows[0] }.map(\.seed)
    }()

    @Test("three seeded users' figures agree in every view of every service, on three days of the week after their history")
    func throughTheGateway() async throws {
        #expect(Self.seeds.count == 3, "the seeds 1-200 hold a user of each kind")
        let first = CalendarScenario(seed: Self.seeds[0])
        // Each history is lived at its first "now" (every meal eaten before it), then read at each of its seven.
        try await FullStack.run(start: first.nows[0]) { stack in
            for seed in Self.seeds {
                let scenario = CalendarScenario(seed: seed).withoutBodyMetrics.withFreshMealIds
                stack.clock.advance(by: max(0, scenario.nows[0].timeIntervalSince(stack.clock.now())))
                let user = try await stack.signUp("Calendar\(seed)")
                try await Self.live(scenario, as: user, stack: stack)
                try await Self.awaitTrends(scenario, of: user.id, token: user.token, stack: stack)
                // Three of the seven days as today (the read-model suite takes every weekday): the first, with the past days
                // opened, one in the middle and the last.
                for now in [scenario.nows[0], scenario.nows[3], scenario.nows[6]] {
                    stack.clock.advance(by: now.timeIntervalSince(stack.clock.now()))
                    let token = try await stack.signIn(user)
                    let today = CalendarDate(now, in: scenario.zone)
                    try await FigureChecks(scenario: scenario, today: today, opensPastDays: now == scenario.nows[0]) { uri in
                        let response = try await stack.gateway.call(.get, uri, token: token)
                        #expect(response.status == .ok, "seed \(seed): \(uri) answered \(response.status): \(String(buffer: response.body))")
                        return Data(buffer: response.body)
                    }.run()
                }
                try await Self.otherViews(scenario, token: try await stack.signIn(user), stack: stack)
            }
        }
    }

    /// Does what the scenario's user did, through the gateway's routes, in order.
    static func live(_ scenario: CalendarScenario, as user: JourneyUser, stack: FullStack) async throws {
        let token = user.token
        for action in scenario.actions {
            switch action {
            case .profile(let profile):
                try await stack.expect(
                    .ok, .put, "/api/users/profile",
                    json: #"{"timeZone":"\#(profile.timeZone)","weekStart":"\#(profile.weekStart ?? "monday")"}"#, token: token)
                try await awaitMealsZone(profile.timeZone, of: user.id, stack: stack)
            case .log(let meal):
                try await stack.expect(
                    .created, .put, "/api/meals/\(meal.id)",
                    json: #"{"title":"Meal","items":[\#(item(meal))],"eatenAt":"\#(timestamp(meal.eatenAt))","consumed":\#(meal.consumed)}"#,
                    token: token)
            case .edit(let meal, let moved):
                // The time only when it moved: the day stays the one the meal was filed on otherwise.
                let time = moved ? #","eatenAt":"\#(timestamp(meal.eatenAt))""# : ""
                try await stack.expect(.ok, .put, "/api/meals/\(meal.id)", json: #"{"items":[\#(item(meal))]\#(time)}"#, token: token)
            case .consume(let meal): try await stack.expect(.ok, .post, "/api/meals/\(meal.id)/consume", json: "{}", token: token)
            case .unconsume(let meal): try await stack.expect(.ok, .delete, "/api/meals/\(meal.id)/consume", token: token)
            case .delete(let meal): try await stack.expect(.noContent, .delete, "/api/meals/\(meal.id)", token: token)
            case .water, .weight: continue
            }
        }
    }

    /// Waits until the meals service's copy of the profile is in `zone`: the meals logged next are filed in it.
    static func awaitMealsZone(_ zone: String, of userId: UUID, stack: FullStack) async throws {
        let meals = try #require(stack.databases["meals"])
        let arrived = try await TestEnvironment.eventually(timeout: .seconds(30)) {
            let rows = try await meals.query(
                "SELECT profile ->> 'timeZone' FROM user_profiles WHERE user_id = \(userId)", logger: TestEnvironment.logger)
            return try await rows.decode(String?.self).first { _ in true } == .some(zone)
        }
        #expect(arrived, "the meals service never learnt the zone \(zone)")
    }

    /// Waits until trends has applied every meal event the meals service wrote for the user, then until it counts what
    /// the scenario's user did (all time), so the figures are read on a settled state. Counts alone are not enough:
    /// the topics are consumed apart, and a meal consumed and then deleted that arrives last nets to nothing, so the
    /// totals equal the truth's before it and again after it, with the meal in between (seen: a seed's first "today"
    /// read while it was there).
    static func awaitTrends(_ scenario: CalendarScenario, of userId: UUID, token: String, stack: FullStack) async throws {
        let meals = try #require(stack.databases["meals"])
        let trends = try #require(stack.databases["trends"])
        let applied = try await TestEnvironment.eventually(timeout: .seconds(30)) {
            let written = try await meals.query(
                "SELECT event_id FROM outbox WHERE message_key = \(userId.uuidString.lowercased()) AND topic LIKE 'meal.%'",
                logger: TestEnvironment.logger)
            var ids: [UUID] = []
            for try await id in written.decode(UUID.self) { ids.append(id) }
            let rows = try await trends.query("SELECT count(*) FROM inbox WHERE event_id = ANY(\(ids))", logger: TestEnvironment.logger)
            let count = try await rows.decode(Int.self).first { _ in true } ?? 0
            return !ids.isEmpty && count == ids.count
        }
        #expect(applied, "seed \(scenario.seed): trends never applied every meal event the meals service wrote")
        let truth = scenario.sum()
        let stats = try await stack.gateway.eventually("/api/user/stats", token: token, as: FigureChecks.Stats.self) { stats in
            stats.allTime.mealsConsumed == truth.consumed && stats.allTime.mealsScanned == truth.scanned
                && stats.allTime.totals.calories == Double(truth.calories)
        }
        #expect(stats.allTime.mealsConsumed == truth.consumed, "seed \(scenario.seed): trends never counted every meal")
    }

    /// The meals list, the export's meals.csv and a shared meal say what the truth says.
    static func otherViews(_ scenario: CalendarScenario, token: String, stack: FullStack) async throws {
        let living = scenario.meals.values.filter { !$0.deleted }
        var listed: [UUID: (day: String, consumed: Bool)] = [:]
        var cursor: String?
        repeat {
            let page = try await stack.expect(.ok, .get, "/api/meals?limit=100" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
            let list = try page.decoded(MealList.self)
            for meal in list.meals { listed[meal.id] = (meal.localDate, meal.isConsumed) }
            cursor = list.nextCursor
        } while cursor != nil
        #expect(Set(listed.keys) == Set(living.map(\.id)), "seed \(scenario.seed): the meals list holds other meals than the truth")
        for meal in living {
            #expect(
                listed[meal.id]?.day == meal.day.description && listed[meal.id]?.consumed == meal.consumed,
                "seed \(scenario.seed): meal \(meal.id) in the list")
        }

        let export = try await stack.expect(.ok, .get, "/api/export?format=csv", token: token)
        let files = try DataExportTests.readZip(Data(buffer: export.body)).files
        let rows = try #require(files["meals.csv"], "the export has no meals.csv")
        let header = try #require(rows.first)
        let id = try #require(header.firstIndex(of: "id")), day = try #require(header.firstIndex(of: "localDate"))
        let consumed = try #require(header.firstIndex(of: "isConsumed"))
        let exported = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { (UUID(uuidString: $0[id])!, ($0[day], $0[consumed] == "true")) })
        #expect(Set(exported.keys) == Set(living.map(\.id)), "seed \(scenario.seed): meals.csv holds other meals than the truth")
        for meal in living {
            #expect(
                exported[meal.id]?.0 == meal.day.description && exported[meal.id]?.1 == meal.consumed,
                "seed \(scenario.seed): meal \(meal.id) in meals.csv")
        }

        if let shared = living.filter(\.consumed).max(by: { $0.eatenAt < $1.eatenAt }) {
            let link = try await stack.gateway.shareWhenReady(shared.id, json: "{}", token: token).decoded(LinkAnswer.self)
            let view = try await stack.expect(.ok, .get, "/api/share/\(link.token)", token: nil).decoded(SharedMealAnswer.self)
            #expect(view.meal.totals.calories == Double(shared.calories), "seed \(scenario.seed): the shared meal's calories")
        }
    }

    /// The meal's one item, with the amounts the scenario's events carry, heavier than its macros.
    static func item(_ meal: CalendarScenario.Meal) -> String {
        let (carbs, fat) = (meal.calories / 8, meal.calories / 30)
        return #"{"name":"Food","grams":\#(meal.protein + carbs + fat + 100),"calories":\#(meal.calories),"protein":\#(meal.protein),"#
            + #""carbs":\#(carbs),"fat":\#(fat),"fiber":3}"#
    }

    static func timestamp(_ instant: Date) -> String { instant.formatted(Date.ISO8601FormatStyle()) }

    /// A page of `GET /api/meals`.
    struct MealList: Decodable {
        struct Meal: Decodable {
            var id: UUID
            var localDate: String
            var isConsumed: Bool
        }
        var meals: [Meal]
        var nextCursor: String?
    }
}
