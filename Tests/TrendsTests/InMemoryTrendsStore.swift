import EventContracts
import Foundation
import Logging
import ServiceDefaults
import Synchronization

@testable import TrendsService

/// The trends read models in memory, for router tests: what the event consumer would have left (profiles, day
/// summaries, meals, body metrics), each change raising the user's data version as applying an event does. It counts
/// reads, so tests can see which answers came from the ready reports.
final class InMemoryTrendsStore: TrendsStore {
    private struct UserData {
        var version: Int64 = 0
        var profile: TrendsProfile = .standard
        var days: [CalendarDate: DaySummary] = [:]
        var meals: [MealSnapshot] = []
        var bodyMetrics: [CalendarDate: BodyMetricsDay] = [:]
    }

    private let users = Mutex<[UUID: UserData]>([:])
    private let readCount = Mutex(0)

    /// Reads of anything but the data version so far.
    var reads: Int { readCount.withLock { $0 } }

    // MARK: What the event consumer writes

    func setProfile(_ profile: TrendsProfile, of userId: UUID) {
        change(userId) { $0.profile = profile }
    }

    /// The day as the summary projection leaves it after its meals and water.
    func record(_ day: DaySummary, of userId: UUID) {
        change(userId) { $0.days[day.date] = day }
    }

    func record(_ meal: MealSnapshot) {
        change(meal.userId) { $0.meals.append(meal) }
    }

    func record(_ metrics: BodyMetricsDay, of userId: UUID) {
        change(userId) { $0.bodyMetrics[metrics.date] = metrics }
    }

    private func change(_ userId: UUID, _ apply: (inout UserData) -> Void) {
        users.withLock { users in
            apply(&users[userId, default: UserData()])
            users[userId]!.version += 1
        }
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
        read(userId) { user in user.days.values.filter { range.contains($0.date) }.sorted { $0.date < $1.date } }
    }

    func loggedDays(of userId: UUID, logger: Logger) async throws -> [CalendarDate] {
        read(userId) { user in user.days.values.filter(\.isLogged).map(\.date).sorted() }
    }

    func totals(of userId: UUID, from starts: [CalendarDate], through end: CalendarDate, logger: Logger) async throws
        -> [CalendarDate: PeriodTotals]
    {
        read(userId) { user in
            Dictionary(
                uniqueKeysWithValues: starts.map { start in (start, PeriodTotals(user.days.values.filter { $0.date >= start && $0.date <= end })) })
        }
    }

    func highlights(of userId: UUID, in range: ClosedRange<CalendarDate>, best: Bool, limit: Int, logger: Logger) async throws
        -> [MealHighlight]
    {
        read(userId) { user in
            let consumed = user.meals.filter { meal in meal.isConsumed && CalendarDate(meal.localDate).map(range.contains) == true }
            let ranked = consumed.sorted { left, right in
                if left.dietScore != right.dietScore { return best ? left.dietScore > right.dietScore : left.dietScore < right.dietScore }
                let leftHealth = left.healthScore ?? (best ? Int.min : Int.max), rightHealth = right.healthScore ?? (best ? Int.min : Int.max)
                if leftHealth != rightHealth { return best ? leftHealth > rightHealth : leftHealth < rightHealth }
                return left.eatenAt > right.eatenAt
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
        read(userId) { user in user.meals.filter { $0.localDate == day.description }.sorted { $0.eatenAt < $1.eatenAt } }
    }

    func bodyMetrics(of userId: UUID, in range: ClosedRange<CalendarDate>, logger: Logger) async throws -> [BodyMetricsDay] {
        read(userId) { user in user.bodyMetrics.values.filter { range.contains($0.date) }.sorted { $0.date < $1.date } }
    }
}
