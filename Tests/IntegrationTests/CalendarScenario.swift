import EventContracts
import Foundation
import ServiceDefaults
import TestSupport

/// A seeded user's history that stresses the calendar: a zone far from UTC (UTC+14, UTC-11, half-hour and 45-minute
/// offsets, Lord Howe's half-hour daylight-saving change, zones whose clocks change inside the history), a week that
/// starts on any day, meals consumed, scanned, edited, moved to another day, unconsumed and deleted on random days,
/// water and weigh-ins, and sometimes a move to another zone (moving west at the end leaves entries dated after the
/// new today). It gives the events as the services would publish them, the seven "now"s of the week after the history
/// (each weekday is today once), and what every figure must say: each day's truth, kept apart from any code under test.
struct CalendarScenario {
    /// One day's truth.
    struct Day: Equatable {
        var consumed = 0
        var scanned = 0
        var calories = 0
        var protein = 0
        var water = 0
    }

    /// The final state of one meal, as the user left it.
    struct Meal {
        var id: UUID
        var day: CalendarDate
        var eatenAt: Date
        var consumed: Bool
        var calories: Int
        var protein: Int
        var version: Int
        var deleted = false
    }

    /// What the user did, as the services' routes would be asked to do it.
    enum Action {
        case profile(UserProfileUpdated)
        /// A meal written for the first time (consumed, or only scanned).
        case log(Meal)
        /// New amounts, and when `moved` another time of eating (and so maybe another day).
        case edit(Meal, moved: Bool)
        case consume(Meal)
        case unconsume(Meal)
        case delete(Meal)
        case water(WaterLogged)
        case weight(WeightLogged)
    }

    let seed: UInt64
    let userId: UUID
    /// The zone the user ends in (today's zone) and the one they started in.
    let zone: TimeZone
    let firstZone: TimeZone
    let weekStart: Weekday
    /// What the user did, in the order they did it.
    private(set) var actions: [Action] = []
    /// The seven instants after the history at which the figures are read.
    let nows: [Date]
    private(set) var meals: [UUID: Meal] = [:]
    private(set) var water: [CalendarDate: Int] = [:]

    static let zones = [
        "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "America/New_York",
        "Europe/London", "Pacific/Auckland", "Pacific/Honolulu", "Pacific/Chatham", "America/St_Johns", "UTC",
    ]
    /// Where the history ends: days around daylight-saving changes in either hemisphere, and ordinary ones.
    static let anchors = [
        "2026-03-09T06:00:00Z", "2026-04-06T03:00:00Z", "2026-10-05T12:00:00Z", "2026-11-02T09:00:00Z", "2026-12-07T12:00:00Z",
        "2026-06-15T18:00:00Z", "2027-01-01T00:30:00Z",
    ]

    init(seed: UInt64) {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        func uuid() -> UUID {
            let (high, low) = (random.next(), random.next())
            return withUnsafeBytes(of: (high, low)) { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        userId = uuid()
        let end = ISO8601DateFormatter().date(from: Self.anchors.randomElement(using: &random)!)!
            .addingTimeInterval(Double(Int.random(in: 0..<86_400, using: &random)))
        let first = TimeZone(identifier: Self.zones.randomElement(using: &random)!)!
        // A third of the users move: anywhere, or west across the date line just before the end.
        let movesWestAtTheEnd = Int.random(in: 0..<6, using: &random) == 0
        let moves = movesWestAtTheEnd || Int.random(in: 0..<4, using: &random) == 0
        let last =
            movesWestAtTheEnd
            ? TimeZone(identifier: "Pacific/Pago_Pago")! : moves ? TimeZone(identifier: Self.zones.randomElement(using: &random)!)! : first
        firstZone = movesWestAtTheEnd ? TimeZone(identifier: "Pacific/Kiritimati")! : first
        zone = last
        weekStart = Weekday.allCases.randomElement(using: &random)!
        let historyDays = Int.random(in: 20...100, using: &random)
        let start = end.addingTimeInterval(-Double(historyDays) * 86_400)
        let move =
            movesWestAtTheEnd
            ? end.addingTimeInterval(-1_800) : start.addingTimeInterval(Double(Int.random(in: 0...(historyDays * 86_400), using: &random)))
        nows = (0..<7).map { end.addingTimeInterval(Double($0) * 86_400 + 60) }

        let goal = Bool.random(using: &random) ? Int.random(in: 15...30, using: &random) * 100 : nil
        func profile(_ zone: TimeZone, version: Int) -> UserProfileUpdated {
            var event = UserProfileUpdated(
                userId: userId, displayName: "Scenario \(seed)", dietPreference: "balanced", dailyCalorieGoal: goal, timeZone: zone.identifier,
                version: version)
            event.weekStart = weekStart.rawValue
            event.goalsEffectiveFrom = "2026-01-01"
            return event
        }
        actions.append(.profile(profile(firstZone, version: 1)))
        func zoneAt(_ instant: Date) -> TimeZone { instant < move || !moves ? firstZone : last }
        func instant(in range: ClosedRange<Date>) -> Date {
            Date(
                timeIntervalSince1970: Double(
                    Int.random(in: Int(range.lowerBound.timeIntervalSince1970)...Int(range.upperBound.timeIntervalSince1970), using: &random)))
        }

        // Meals, spread over the history and crowded into its last day (entries logged just before a move west).
        var pending: [(Date, Action)] = []
        for index in 0..<Int.random(in: 15...60, using: &random) {
            let crowded = movesWestAtTheEnd && index % 4 == 0
            let eatenAt = instant(in: (crowded ? move.addingTimeInterval(-10 * 3_600) : start)...(crowded ? move : end))
            var meal = Meal(
                id: uuid(), day: CalendarDate(eatenAt, in: zoneAt(eatenAt)), eatenAt: eatenAt, consumed: Int.random(in: 0..<5, using: &random) > 0,
                calories: Int.random(in: 50...1_200, using: &random), protein: Int.random(in: 0...80, using: &random), version: 1)
            var at = eatenAt
            pending.append((at, .log(meal)))
            // Follow-ups, each a new version, published after the meal.
            for _ in 0..<Int.random(in: 0...3, using: &random) where !meal.deleted {
                at = at.addingTimeInterval(Double(Int.random(in: 60...86_400, using: &random)))
                meal.version += 1
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:  // edited: other amounts, sometimes eaten at another time (another day)
                    meal.calories = Int.random(in: 50...1_200, using: &random)
                    meal.protein = Int.random(in: 0...80, using: &random)
                    let timeMoves = Bool.random(using: &random)
                    if timeMoves {
                        let moved = min(
                            end, max(start, meal.eatenAt.addingTimeInterval(Double(Int.random(in: -2 * 86_400...2 * 86_400, using: &random)))))
                        meal.eatenAt = moved
                        // The meals service files the new time under the zone of the profile at the edit.
                        meal.day = CalendarDate(moved, in: zoneAt(at))
                    }
                    pending.append((at, .edit(meal, moved: timeMoves)))
                case 4..<6 where meal.consumed:
                    meal.consumed = false
                    pending.append((at, .unconsume(meal)))
                case 4..<6:
                    meal.consumed = true
                    pending.append((at, .consume(meal)))
                default:
                    meal.deleted = true
                    pending.append((at, .delete(meal)))
                }
            }
            meals[meal.id] = meal
        }
        // Water: a day's total, changed now and then (to 0 when its entries are removed).
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            let at = instant(in: start...end)
            let day = CalendarDate(at, in: zoneAt(at))
            let version = (water[day] == nil ? 0 : 1) + Int.random(in: 1...3, using: &random)
            let total = Bool.random(using: &random) ? Int.random(in: 1...12, using: &random) * 250 : 0
            water[day] = total
            pending.append(
                (
                    at,
                    .water(
                        WaterLogged(
                            userId: userId, date: day.description, totalMillilitres: total, entryCount: total / 250, loggedAt: at,
                            version: version))
                ))
        }
        // Weigh-ins: they touch no figure of a day's meals, but go through the same consumer.
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            let at = instant(in: start...end)
            pending.append(
                (
                    at,
                    .weight(
                        WeightLogged(
                            userId: userId, date: CalendarDate(at, in: zoneAt(at)).description,
                            weightKg: Double(Int.random(in: 600...900, using: &random)) / 10, ketonesMmolPerLiter: nil, loggedAt: at,
                            version: 1))
                ))
        }
        if moves { pending.append((move, .profile(profile(last, version: 2)))) }
        // Done in the order they happened; a water day's versions rise in that order.
        var waterVersions: [String: Int] = [:]
        for action in pending.enumerated().sorted(by: { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }).map(\.element.1) {
            guard case .water(var water) = action else {
                actions.append(action)
                continue
            }
            water.version = (waterVersions[water.date] ?? 0) + 1
            waterVersions[water.date] = water.version
            actions.append(.water(water))
        }
        // The last copy of each day's water decides.
        water = [:]
        for case .water(let event) in actions { water[CalendarDate(event.date)!] = event.totalMillilitres }
    }

    /// The scenario with every meal under a new id (a journey's meals must not meet those of an earlier run of the same
    /// seed, which another account owns).
    var withFreshMealIds: CalendarScenario {
        var ids: [UUID: UUID] = [:]
        for id in meals.keys { ids[id] = UUID() }
        func renamed(_ meal: Meal) -> Meal {
            var meal = meal
            meal.id = ids[meal.id]!
            return meal
        }
        var scenario = self
        scenario.meals = Dictionary(uniqueKeysWithValues: meals.values.map { (ids[$0.id]!, renamed($0)) })
        scenario.actions = actions.map { action in
            switch action {
            case .log(let meal): .log(renamed(meal))
            case .edit(let meal, let moved): .edit(renamed(meal), moved: moved)
            case .consume(let meal): .consume(renamed(meal))
            case .unconsume(let meal): .unconsume(renamed(meal))
            case .delete(let meal): .delete(renamed(meal))
            case .profile, .water, .weight: action
            }
        }
        return scenario
    }

    /// The scenario without water and weigh-ins (for a journey that logs meals only).
    var withoutBodyMetrics: CalendarScenario {
        var scenario = self
        scenario.actions = actions.filter { action in
            switch action {
            case .water, .weight: false
            default: true
            }
        }
        scenario.water = [:]
        return scenario
    }

    /// The events the services publish for the actions, in order: a meal's full state after each change (an unconsume
    /// with the full copy beside it, as the meals service sends them).
    var events: [any EventPayload] {
        actions.flatMap { action -> [any EventPayload] in
            switch action {
            case .profile(let event): [event]
            case .log(let meal), .edit(let meal, _): [meal.consumed ? MealConsumed(meal: snapshot(meal)) : MealAnalyzed(meal: snapshot(meal))]
            case .consume(let meal): [MealConsumed(meal: snapshot(meal))]
            case .unconsume(let meal):
                [MealDeleted(mealId: meal.id, userId: userId, reason: "unconsumed", version: meal.version), MealAnalyzed(meal: snapshot(meal))]
            case .delete(let meal): [MealDeleted(mealId: meal.id, userId: userId, reason: "deleted", version: meal.version)]
            case .water(let event): [event]
            case .weight(let event): [event]
            }
        }
    }

    /// The meal as the meals service publishes it.
    private func snapshot(_ meal: Meal) -> MealSnapshot {
        let totals = NutrientTotals(
            calories: Double(meal.calories), proteinGrams: Double(meal.protein), carbsGrams: Double(meal.calories / 8),
            fatGrams: Double(meal.calories / 30),
            fiberGrams: 3)
        return MealSnapshot(
            mealId: meal.id, userId: userId, title: "Meal \(meal.id.uuidString.lowercased().prefix(4))", origin: "manual", mealType: "lunch",
            captureKind: "full_meal", eatenAt: meal.eatenAt, localDate: meal.day.description, timeZone: zone.identifier, isConsumed: meal.consumed,
            edited: meal.version > 1, notes: nil, hasPhoto: false,
            items: [
                MealSnapshotItem(
                    name: "Food", amount: 1, unit: "serving", grams: 200, nutrients: totals, healthScore: 60, healthRating: "good", source: "manual")
            ],
            totals: totals, healthScore: 40 + meal.calories % 60, healthRating: "good", dietPreference: "balanced", dietScore: meal.calories % 101,
            dietBand: "yellow", dietExplanation: "Scenario.", version: meal.version)
    }

    /// Each day's truth: the meals the user did not delete, on the day they were logged on, and the water.
    var days: [CalendarDate: Day] {
        var days: [CalendarDate: Day] = [:]
        for meal in meals.values where !meal.deleted {
            if meal.consumed {
                days[meal.day, default: Day()].consumed += 1
                days[meal.day, default: Day()].calories += meal.calories
                days[meal.day, default: Day()].protein += meal.protein
            } else {
                days[meal.day, default: Day()].scanned += 1
            }
        }
        for (day, millilitres) in water where millilitres > 0 { days[day, default: Day()].water = millilitres }
        return days
    }

    /// The truth summed over `days` (all days when nil).
    func sum(over range: ClosedRange<CalendarDate>? = nil) -> (consumed: Int, scanned: Int, calories: Int, protein: Int, daysLogged: Int) {
        let chosen = days.filter { range?.contains($0.key) ?? true }.values
        return (
            chosen.reduce(0) { $0 + $1.consumed }, chosen.reduce(0) { $0 + $1.scanned }, chosen.reduce(0) { $0 + $1.calories },
            chosen.reduce(0) { $0 + $1.protein }, chosen.filter { $0.consumed > 0 }.count
        )
    }

    /// The current and longest run of consecutive days with a consumed meal up to `today` (a run is still alive when
    /// yesterday was logged and today not yet), counted from the truth.
    func streaks(today: CalendarDate) -> (current: Int, longest: Int) {
        let logged = Set(days.filter { $0.value.consumed > 0 && $0.key <= today }.keys)
        var longest = 0
        for day in logged where !logged.contains(day.adding(days: -1)) {
            var length = 1
            while logged.contains(day.adding(days: length)) { length += 1 }
            longest = max(longest, length)
        }
        var end = logged.contains(today) ? today : today.adding(days: -1)
        var current = 0
        while logged.contains(end) {
            current += 1
            end = end.adding(days: -1)
        }
        return (current, longest)
    }
}
