import EventContracts
import Foundation
import Logging
import ServiceDefaults
import SyncContracts
import Synchronization

@testable import MetricsService

/// `BodyMetricsStore` in memory, for router tests: the same rules as the Postgres one (a never-recorded day is empty
/// with version 0; a change that throws leaves the day as it was; emptied days are left out of lists and shown as
/// tombstones in the feed; last-write-wins by `DayWriteVerdict`) and a record of every `weight.logged` a change would
/// publish and every conflict it would record.
final class InMemoryBodyMetricsStore: BodyMetricsStore {
    private struct DayKey: Hashable {
        let userId: UUID
        let date: CalendarDate
    }

    /// A conflict as the store would record it.
    struct RecordedConflict: Sendable, Equatable {
        var userId: UUID
        var date: CalendarDate
        var resolution: SyncConflictResolution
    }

    private struct State {
        var days: [DayKey: (day: DailyMetrics, seq: Int64)] = [:]
        var profiles: [UUID: MetricsProfile] = [:]
        var published: [WeightLogged] = []
        var conflicts: [RecordedConflict] = []
        var clocks: [UUID: Int64] = [:]
    }

    private let state = Mutex<State>(State())
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// Every event a change published, oldest first.
    var published: [WeightLogged] { state.withLock { $0.published } }

    /// Every conflict recorded, oldest first.
    var conflicts: [RecordedConflict] { state.withLock { $0.conflicts } }

    /// Sets a user's unit and zone, as `user.profile_updated` would.
    func setProfile(_ profile: MetricsProfile, of userId: UUID) { state.withLock { $0.profiles[userId] = profile } }

    /// The stored day, recorded or not.
    func day(of userId: UUID, on date: CalendarDate) -> DailyMetrics? {
        state.withLock { $0.days[DayKey(userId: userId, date: date)]?.day }
    }

    func profile(of userId: UUID, logger: Logger) async throws -> MetricsProfile {
        state.withLock { $0.profiles[userId] ?? .unknown }
    }

    func days(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [DailyMetrics] {
        state.withLock { state in
            state.days.values.map(\.day).filter { $0.userId == userId && $0.date >= from && $0.date <= to && !$0.isEmpty }
                .sorted { $0.date < $1.date }
        }
    }

    func change(
        userId: UUID, date: CalendarDate, write: DayWrite, logger: Logger,
        _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> DayChangeOutcome {
        let now = now()
        return try state.withLock { state in
            let key = DayKey(userId: userId, date: date)
            let before = state.days[key]?.day ?? DailyMetrics(userId: userId, date: date, version: 0, updatedAt: now)
            var after = before
            try change(&after)
            switch DayWriteVerdict.of(write, stored: before) {
            case .unchanged:
                return .unchanged(before)
            case .ignore(let resolution):
                state.conflicts.append(RecordedConflict(userId: userId, date: date, resolution: resolution))
                return .ignored(stored: before, resolution: resolution)
            case .apply(let overrodeNewerEdit):
                if overrodeNewerEdit { state.conflicts.append(RecordedConflict(userId: userId, date: date, resolution: .deletionOverrodeEdit)) }
                after.finishChange(at: now, stamp: write.stamp)
                let seq = (state.clocks[userId] ?? 0) + 1
                state.clocks[userId] = seq
                state.days[key] = (after, seq)
                state.published.append(after.event)
                return .applied(before: before, after: after)
            }
        }
    }

    func changes(of userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> [MetricsFeedEntry] {
        state.withLock { state in
            state.days.values.filter { $0.day.userId == userId && $0.seq > since }.sorted { $0.seq < $1.seq }.prefix(limit).map {
                $0.day.isEmpty
                    ? .removed(seq: $0.seq, date: $0.day.date.description, version: $0.day.version, deletedAt: $0.day.updatedAt)
                    : .day(seq: $0.seq, $0.day)
            }
        }
    }

    func conflicts(of userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        SyncConflictPage(conflicts: [], nextCursor: nil)
    }
}
