import EventContracts
import Foundation
import Logging
import ServiceDefaults
import SyncContracts
import Synchronization

@testable import MetricsService

/// `BodyMetricsStore` in memory, for router tests: the same rules as the Postgres one (a never-recorded day is empty
/// with version 0; a change that throws leaves the day as it was; emptied days are left out of lists and shown as
/// tombstones in the feed; last-write-wins by `DayWriteVerdict` and, for water entries, `WaterWriteVerdict`) and a record
/// of every `weight.logged` and `water.logged` a change would publish and every conflict it would record.
final class InMemoryBodyMetricsStore: BodyMetricsStore {
    private struct DayKey: Hashable {
        let userId: UUID
        let date: CalendarDate
    }

    /// A conflict as the store would record it: of a day (`body_metrics_day`, entity id the day) or of a water entry
    /// (`water_entry`, entity id the entry's id).
    struct RecordedConflict: Sendable, Equatable {
        var userId: UUID
        var date: CalendarDate
        var resolution: SyncConflictResolution
        var type = DailyMetrics.syncType
        var entityId: String? = nil
        var id = UUID()
        var at: Date
    }

    private struct State {
        var days: [DayKey: (day: DailyMetrics, seq: Int64)] = [:]
        var profiles: [UUID: MetricsProfile] = [:]
        var published: [WeightLogged] = []
        var conflicts: [RecordedConflict] = []
        var clocks: [UUID: Int64] = [:]
        var water: [UUID: (entry: WaterEntry, seq: Int64)] = [:]
        var removedWater: [UUID: (userId: UUID, version: Int, deletedAt: Date, seq: Int64)] = [:]
        var waterVersions: [DayKey: Int] = [:]
        var publishedWater: [WaterLogged] = []
    }

    private let state = Mutex<State>(State())
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// Every event a change published, oldest first.
    var published: [WeightLogged] { state.withLock { $0.published } }

    /// Every `water.logged` a change published, oldest first.
    var publishedWater: [WaterLogged] { state.withLock { $0.publishedWater } }

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
                state.conflicts.append(RecordedConflict(userId: userId, date: date, resolution: resolution, at: now))
                return .ignored(stored: before, resolution: resolution)
            case .apply(let overrodeNewerEdit):
                if overrodeNewerEdit {
                    state.conflicts.append(RecordedConflict(userId: userId, date: date, resolution: .deletionOverrodeEdit, at: now))
                }
                after.finishChange(at: now, stamp: write.stamp)
                let seq = (state.clocks[userId] ?? 0) + 1
                state.clocks[userId] = seq
                state.days[key] = (after, seq)
                state.published.append(after.event)
                return .applied(before: before, after: after)
            }
        }
    }

    func waterEntries(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [WaterEntry] {
        state.withLock { state in
            state.water.values.map(\.entry).filter { $0.userId == userId && $0.date >= from && $0.date <= to }
                .sorted { ($0.date, $0.createdAt, $0.entityId) < ($1.date, $1.createdAt, $1.entityId) }
        }
    }

    func changeWater(userId: UUID, _ change: WaterWrite, logger: Logger) async throws -> WaterChangeOutcome {
        let now = now()
        return try state.withLock { state in
            let stored = state.water[change.id].flatMap { $0.entry.userId == userId ? $0.entry : nil }
            let removed = state.removedWater[change.id].flatMap { $0.userId == userId ? $0 : nil }
            func nextSeq() -> Int64 {
                let seq = (state.clocks[userId] ?? 0) + 1
                state.clocks[userId] = seq
                return seq
            }
            func publish(_ days: Set<CalendarDate>) {
                for date in days.sorted() {
                    let key = DayKey(userId: userId, date: date)
                    let version = (state.waterVersions[key] ?? 0) + 1
                    state.waterVersions[key] = version
                    let entries = state.water.values.map(\.entry).filter { $0.userId == userId && $0.date == date }
                    state.publishedWater.append(
                        WaterLogged(
                            userId: userId, date: date.description, totalMillilitres: entries.reduce(0) { $0 + $1.millilitres },
                            entryCount: entries.count, loggedAt: now, version: version))
                }
            }
            switch WaterWriteVerdict.of(change.write, keepsExisting: change.keepsExisting, stored: stored, wasRemoved: removed != nil) {
            case .notFound:
                throw APIError.notFound("No such water entry.")
            case .preserveDeletion:
                state.conflicts.append(
                    RecordedConflict(
                        userId: userId, date: change.date, resolution: .deletionPreserved, type: WaterEntry.syncType,
                        entityId: change.id.uuidString.lowercased(), at: now))
                return .deletionPreserved(id: change.id.uuidString.lowercased(), version: removed!.version, deletedAt: removed!.deletedAt)
            case .unchanged:
                return .unchanged(stored!)
            case .ignoreStale:
                state.conflicts.append(
                    RecordedConflict(
                        userId: userId, date: stored!.date, resolution: .staleWriteIgnored, type: WaterEntry.syncType,
                        entityId: stored!.entityId, at: now))
                return .ignored(stored: stored!, resolution: .staleWriteIgnored)
            case .create:
                let entry = WaterEntry(
                    id: change.id, userId: userId, date: change.date, millilitres: change.millilitres, version: 1, createdAt: now,
                    updatedAt: now, modified: change.write.stamp)
                state.water[change.id] = (entry, nextSeq())
                publish([entry.date])
                return .created(entry)
            case .apply(let overrodeNewerEdit):
                var entry = stored!
                entry.version += 1
                entry.updatedAt = now
                entry.modified = change.write.stamp
                if overrodeNewerEdit {
                    state.conflicts.append(
                        RecordedConflict(
                            userId: userId, date: entry.date, resolution: .deletionOverrodeEdit, type: WaterEntry.syncType,
                            entityId: entry.entityId, at: now))
                }
                if change.write.isDeletion {
                    state.water[change.id] = nil
                    state.removedWater[change.id] = (userId, entry.version, now, nextSeq())
                    publish([entry.date])
                    return .removed(entry)
                }
                entry.date = change.date
                entry.millilitres = change.millilitres
                state.water[change.id] = (entry, nextSeq())
                publish([stored!.date, entry.date])
                return .updated(entry)
            }
        }
    }

    func changes(of userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> [MetricsFeedEntry] {
        state.withLock { state in
            let days: [MetricsFeedEntry] = state.days.values.filter { $0.day.userId == userId && $0.seq > since }.map {
                $0.day.isEmpty
                    ? .removed(
                        seq: $0.seq, type: DailyMetrics.syncType, id: $0.day.date.description, version: $0.day.version, deletedAt: $0.day.updatedAt)
                    : .day(seq: $0.seq, $0.day)
            }
            let water: [MetricsFeedEntry] = state.water.values.filter { $0.entry.userId == userId && $0.seq > since }.map {
                .water(seq: $0.seq, $0.entry)
            }
            let removed: [MetricsFeedEntry] = state.removedWater.filter { $0.value.userId == userId && $0.value.seq > since }.map {
                .removed(
                    seq: $0.value.seq, type: WaterEntry.syncType, id: $0.key.uuidString.lowercased(), version: $0.value.version,
                    deletedAt: $0.value.deletedAt)
            }
            return Array((days + water + removed).sorted { $0.seq < $1.seq }.prefix(limit))
        }
    }

    /// The user's conflicts, newest first; `cursor` is the id of the last one of the previous page.
    func conflicts(of userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        var mine = state.withLock { $0.conflicts }.filter { $0.userId == userId }.reversed().map { $0 }
        if let cursor, let last = mine.firstIndex(where: { $0.id.uuidString.lowercased() == cursor }) { mine = Array(mine[(last + 1)...]) }
        let page = mine.prefix(limit).map { conflict in
            SyncConflictBody<JSONValue>(
                id: conflict.id, type: conflict.type, entityId: conflict.entityId ?? conflict.date.description, resolution: conflict.resolution,
                winner: conflict.resolution.winner, stored: .object(["modifiedAt": .string(conflict.at.ISO8601Format())]),
                incoming: .object(["modifiedAt": .string(conflict.at.ISO8601Format())]), resolvedAt: conflict.at)
        }
        return SyncConflictPage(conflicts: page, nextCursor: mine.count > limit ? page.last?.id.uuidString.lowercased() : nil)
    }
}
