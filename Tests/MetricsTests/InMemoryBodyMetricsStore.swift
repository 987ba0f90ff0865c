import EventContracts
import Foundation
import Logging
import ServiceDefaults
import Synchronization

@testable import MetricsService

/// `BodyMetricsStore` in memory, for router tests: the same rules as the Postgres one (a never-recorded day is empty
/// with version 0; a change that throws leaves the day as it was; emptied days are left out of lists) and a record of
/// every `weight.logged` a change would publish.
final class InMemoryBodyMetricsStore: BodyMetricsStore {
    private struct DayKey: Hashable {
        let userId: UUID
        let date: CalendarDate
    }

    private let state = Mutex<(days: [DayKey: DailyMetrics], profiles: [UUID: MetricsProfile], published: [WeightLogged])>(([:], [:], []))
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// Every event a change published, oldest first.
    var published: [WeightLogged] { state.withLock { $0.published } }

    /// Sets a user's unit and zone, as `user.profile_updated` would.
    func setProfile(_ profile: MetricsProfile, of userId: UUID) { state.withLock { $0.profiles[userId] = profile } }

    /// The stored day, recorded or not.
    func day(of userId: UUID, on date: CalendarDate) -> DailyMetrics? {
        state.withLock { $0.days[DayKey(userId: userId, date: date)] }
    }

    func profile(of userId: UUID, logger: Logger) async throws -> MetricsProfile {
        state.withLock { $0.profiles[userId] ?? .unknown }
    }

    func days(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [DailyMetrics] {
        state.withLock { state in
            state.days.values.filter { $0.userId == userId && $0.date >= from && $0.date <= to && !$0.isEmpty }.sorted { $0.date < $1.date }
        }
    }

    func change(
        userId: UUID, date: CalendarDate, logger: Logger, _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> (before: DailyMetrics, after: DailyMetrics) {
        let now = now()
        return try state.withLock { state in
            let key = DayKey(userId: userId, date: date)
            let before = state.days[key] ?? DailyMetrics(userId: userId, date: date, version: 0, updatedAt: now)
            var after = before
            try change(&after)
            after.finishChange(at: now)
            state.days[key] = after
            state.published.append(after.event)
            return (before, after)
        }
    }
}
