import EventContracts
import Foundation
import Logging
import ServiceDefaults
import Synchronization

@testable import TrendsService

/// The trends read models in memory, behaving as the SQL of `TrendsEventHandler` and `PostgresTrendsStore` does: fed
/// the same events (`apply`), it keeps meals by version with tombstones, recomputes the summaries of the days a change
/// touched from their meals, keeps each day's newest water and body metrics, and the newest profile. Router tests may
/// also set rows directly (`record`), as a consumer would have left them. Each change raises the user's data version;
/// reads are counted, so tests can see which answers came from the ready reports.
///
/// The consistency suite (`Tests/IntegrationTests/FigureConsistencyTests.swift`) feeds it and the PostgreSQL store the
/// same events and requires every answer of both to agree.
final class InMemoryTrendsStore: TrendsStore {
    /// A meal as the `meals` table holds it.
    private struct MealRow {
        var version: Int
        var hasState: Bool
        var deleted: Bool
        var snapshot: MealSnapshot?
        var localDate: CalendarDate?
    }

    private struct UserData {
        var version: Int64 = 0
        var profile: TrendsProfile = .standard
        var profileVersion = 0
        /// `goal_history`: the calorie goal from each day, with the version that set it.
        var goalPeriods: [CalendarDate: (goal: Int?, version: Int)] = [:]
        /// `daily_summaries`: days with at least one meal (their water is in `water`).
        var mealDays: [CalendarDate: DaySummary] = [:]
        /// `water_days`: each day's total and its version.
        var water: [CalendarDate: (millilitres: Int, version: Int)] = [:]
        var meals: [UUID: MealRow] = [:]
        var bodyMetrics: [CalendarDate: (day: BodyMetricsDay, version: Int)] = [:]
    }

    private let users = Mutex<[UUID: UserData]>([:])
    private let deletedUsers = Mutex<Set<UUID>>([])
    private let readCount = Mutex(0)

    init() {}

    /// Reads of anything but the data version so far.
    var reads: Int { readCount.withLock { $0 } }

    // MARK: Rows set directly, as the event consumer would have left them

    func setProfile(_ profile: TrendsProfile, of userId: UUID) {
        change(userId) { $0.profile = profile }
    }

    /// The day as the summary projection leaves it after its meals and water.
    func record(_ day: DaySummary, of userId: UUID) {
        change(userId) { user in
            var meals = day
            meals.waterMillilitres = 0
            user.mealDays[day.date] = day.consumedCount + day.scannedCount > 0 ? meals : nil
            user.water[day.date] = day.waterMillilitres > 0 ? (day.waterMillilitres, 1) : nil
        }
    }

    /// The meal's row as the meal projection stores it (its day's summary is not recomputed: record the day too).
    func record(_ meal: MealSnapshot) {
        change(meal.userId) { user in
            user.meals[meal.mealId] = MealRow(
                version: meal.version, hasState: true, deleted: false, snapshot: meal, localDate: CalendarDate(meal.localDate))
        }
    }

    func record(_ metrics: BodyMetricsDay, of userId: UUID) {
        change(userId) { $0.bodyMetrics[metrics.date] = (metrics, 1) }
    }

    // MARK: Events, applied as TrendsEventHandler applies them

    /// Applies one event's payload as the trends consumer does; events of a deleted user change nothing.
    func apply(_ payload: any EventPayload) {
        switch payload {
        case let event as MealAnalyzed: apply(snapshot: event.meal)
        case let event as MealConsumed: apply(snapshot: event.meal)
        case let event as MealDeleted: apply(deletion: event)
        case let event as WaterLogged:
            guard let day = CalendarDate(event.date) else { return }
            changeUnlessDeleted(event.userId) { user in
                if let stored = user.water[day], stored.version >= event.version { return }
                user.water[day] = (event.totalMillilitres, event.version)
            }
        case let event as WeightLogged:
            guard let day = CalendarDate(event.date) else { return }
            changeUnlessDeleted(event.userId) { user in
                if let stored = user.bodyMetrics[day], stored.version >= event.version { return }
                user.bodyMetrics[day] = (BodyMetricsDay(date: day, weightKg: event.weightKg, ketones: event.ketonesMmolPerLiter), event.version)
            }
        case let event as UserProfileUpdated: apply(profile: event)
        case let event as UserDeleted:
            deletedUsers.withLock { _ = $0.insert(event.userId) }
            users.withLock { $0[event.userId] = nil }
        default:
            preconditionFailure("the trends consumer does not consume \(type(of: payload))")
        }
    }

    private func apply(snapshot meal: MealSnapshot) {
        changeUnlessDeleted(meal.userId) { user in
            let row = user.meals[meal.mealId]
            if let row, row.deleted || !(row.version < meal.version || row.version == meal.version && !row.hasState) { return }
            user.meals[meal.mealId] = MealRow(
                version: meal.version, hasState: true, deleted: false, snapshot: meal, localDate: CalendarDate(meal.localDate))
            Self.recompute([row?.localDate, CalendarDate(meal.localDate)].compactMap { $0 }, of: &user)
        }
    }

    private func apply(deletion: MealDeleted) {
        changeUnlessDeleted(deletion.userId) { user in
            guard var row = user.meals[deletion.mealId] else {
                user.meals[deletion.mealId] = MealRow(
                    version: deletion.version, hasState: false, deleted: deletion.reason == "deleted", snapshot: nil, localDate: nil)
                return
            }
            switch deletion.reason {
            case "deleted":
                guard row.version < deletion.version else { return }
                row.deleted = true
                row.snapshot = nil
            case "unconsumed":
                guard !row.deleted, row.version < deletion.version else { return }
                row.hasState = row.hasState && row.version == deletion.version - 1
                row.snapshot?.isConsumed = false
            default:
                return
            }
            row.version = deletion.version
            user.meals[deletion.mealId] = row
            Self.recompute([row.localDate].compactMap { $0 }, of: &user)
        }
    }

    private func apply(profile event: UserProfileUpdated) {
        changeUnlessDeleted(event.userId) { user in
            // goal_history: the highest version wins for one date; an undated event only while no dated period exists.
            let undated = CalendarDate(ProfileProjection.undated)!
            let from = event.goalsEffectiveFrom.flatMap { CalendarDate($0) } ?? undated
            if event.goalsEffectiveFrom != nil || !user.goalPeriods.keys.contains(where: { $0 != undated }),
                (user.goalPeriods[from]?.version ?? Int.min) < event.version
            {
                user.goalPeriods[from] = (event.dailyCalorieGoal, event.version)
            }
            let goals = GoalHistory(user.goalPeriods.map { GoalHistory.Period(from: $0.key, dailyCalorieGoal: $0.value.goal) })
            defer {
                user.profile.goals = goals
                user.profile.goals.dailyWaterGoalMillilitres = user.profile.dailyWaterGoalMillilitres
            }
            guard user.profileVersion < event.version else { return }
            user.profileVersion = event.version
            var profile = TrendsProfile(
                timeZone: TimeZone(identifier: event.timeZone) ?? TrendsProfile.standard.timeZone, weightUnit: event.weightUnit,
                dailyCalorieGoal: event.dailyCalorieGoal, calorieBalanceGoal: event.calorieBalanceGoal, targetWeightKg: event.targetWeightKg,
                heightCm: event.heightCm, birthDate: event.birthDate.flatMap { CalendarDate($0) }, sex: event.sex,
                activityLevel: event.activityLevel)
            profile.dailyWaterGoalMillilitres = event.dailyWaterGoalMillilitres
            profile.weekStart = event.weekStart.flatMap(Weekday.init(rawValue:)) ?? .monday
            user.profile = profile
        }
    }

    /// Recomputes the summaries of `days` from their meals with state, as `DaySummaryProjection` does.
    private static func recompute(_ days: [CalendarDate], of user: inout UserData) {
        for day in Set(days) {
            let meals = user.meals.values.filter { $0.hasState && !$0.deleted && $0.localDate == day }.compactMap(\.snapshot)
            let consumed = meals.filter(\.isConsumed)
            guard !meals.isEmpty else {
                user.mealDays[day] = nil
                continue
            }
            func sum(_ value: (NutrientTotals) -> Double) -> Double { consumed.reduce(0) { $0 + value($1.totals) } }
            func mean(_ values: [Int]) -> Double? { values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count) }
            user.mealDays[day] = DaySummary(
                date: day, consumedCount: consumed.count, scannedCount: meals.count - consumed.count, calories: sum(\.calories),
                proteinGrams: sum(\.proteinGrams), carbsGrams: sum(\.carbsGrams), fatGrams: sum(\.fatGrams), fiberGrams: sum(\.fiberGrams),
                dietScore: mean(consumed.map(\.dietScore)), healthScore: mean(consumed.compactMap(\.healthScore)))
        }
    }

    private func change(_ userId: UUID, _ apply: (inout UserData) -> Void) {
        users.withLock { users in
            apply(&users[userId, default: UserData()])
            users[userId]!.version += 1
        }
    }

    private func changeUnlessDeleted(_ userId: UUID, _ apply: (inout UserData) -> Void) {
        guard !deletedUsers.withLock({ $0.contains(userId) }) else { return }
        change(userId, apply)
    }

    private func read<T>(_ userId: UUID, _ body: (UserData) -> T) -> T {
        readCount.withLock { $0 += 1 }
        return users.withLock { body($0[userId] ?? UserData()) }
    }

    // MARK: TrendsStore

    func dataVersion(of userId: UUID, logger: Logger) async throws -> Int64 {
        users.withLock { $0[userId]?.version ?? 0 }
    }

    func profile(of userId: UUID, logger: Logger) async throws -> TrendsProfile {
        read(userId) { $0.profile }
    }

    func summaries(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [DaySummary] {
        read(userId) { user in
            let days = Set(user.mealDays.keys).union(user.water.filter { $0.value.millilitres > 0 }.keys).filter(range.contains)
            return days.sorted().map { day in
                var summary = user.mealDays[day] ?? .empty(day)
                summary.waterMillilitres = user.water[day]?.millilitres ?? 0
                return summary
            }
        }
    }

    func loggedDays(of userId: UUID, logger: Logger) async throws -> [CalendarDate] {
        read(userId) { user in user.mealDays.values.filter(\.isLogged).map(\.date).sorted() }
    }

    func totals(of userId: UUID, over spans: [ClosedRange<CalendarDate>], logger: Logger) async throws
        -> [ClosedRange<CalendarDate>: PeriodTotals]
    {
        read(userId) { user in
            // A span given twice is one span, as the SQL makes them distinct.
            Dictionary(
                spans.map { span in (span, PeriodTotals(user.mealDays.values.filter { span.contains($0.date) })) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    func highlights(of userId: UUID, in range: ClosedRange<CalendarDate>, best: Bool, limit: Int, logger: Logger) async throws
        -> [MealHighlight]
    {
        read(userId) { user in
            let consumed = Self.stated(user).filter { meal in meal.isConsumed && CalendarDate(meal.localDate).map(range.contains) == true }
            // ORDER BY diet_score, health_score (NULLS LAST either way), eaten_at DESC, meal_id.
            let ranked = consumed.sorted { left, right in
                if left.dietScore != right.dietScore { return best ? left.dietScore > right.dietScore : left.dietScore < right.dietScore }
                if left.healthScore != right.healthScore {
                    guard let leftHealth = left.healthScore else { return false }
                    guard let rightHealth = right.healthScore else { return true }
                    return best ? leftHealth > rightHealth : leftHealth < rightHealth
                }
                if left.eatenAt != right.eatenAt { return left.eatenAt > right.eatenAt }
                return left.mealId.uuidString.lowercased() < right.mealId.uuidString.lowercased()
            }
            return ranked.prefix(limit).map { meal in
                MealHighlight(
                    mealId: meal.mealId, title: meal.title, date: CalendarDate(meal.localDate)!, eatenAt: meal.eatenAt, mealType: meal.mealType,
                    calories: meal.totals.calories, dietScore: meal.dietScore, dietBand: meal.dietBand, healthScore: meal.healthScore,
                    healthRating: meal.healthRating)
            }
        }
    }

    func meals(of userId: UUID, on day: CalendarDate, logger: Logger) async throws -> [MealSnapshot] {
        read(userId) { user in
            Self.stated(user).filter { $0.localDate == day.description }.sorted { left, right in
                left.eatenAt != right.eatenAt
                    ? left.eatenAt < right.eatenAt : left.mealId.uuidString.lowercased() < right.mealId.uuidString.lowercased()
            }
        }
    }

    func bodyMetrics(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [BodyMetricsDay] {
        read(userId) { user in
            user.bodyMetrics.values.map(\.day).filter { range.contains($0.date) && ($0.weightKg != nil || $0.ketones != nil) }
                .sorted { $0.date < $1.date }
        }
    }

    /// The meals with state, not deleted: what the reads see.
    private static func stated(_ user: UserData) -> [MealSnapshot] {
        user.meals.values.filter { $0.hasState && !$0.deleted }.compactMap(\.snapshot)
    }
}
