import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// The one path every change of a water entry takes inside its caller's transaction (a user's write or removal, an
/// import item, the history-retention purge): lock the entry, decide last-write-wins (`WaterWriteVerdict`), and, when
/// it applies, store or remove the entry with its next version, change number and tombstone, and append the
/// `water.logged` of every day it touched; when it loses, record the conflict.
struct WaterChangeWriter: Sendable {
    let water: WaterEntryRepository

    /// Applies `change` (a removal when `change.write.isDeletion`) for the user at `now`; 404 for removing an entry that
    /// is not there.
    func write(
        userId: UUID, _ change: WaterWrite, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> WaterChangeOutcome {
        let id = change.id
        let stored = try await water.lock(userId: userId, id: id, on: connection, logger: logger)
        let tombstone =
            stored == nil
            ? try await SyncTombstones.find(type: WaterEntry.syncType, id: id.uuidString.lowercased(), userId: userId, on: connection, logger: logger)
            : nil
        let write = change.write
        switch WaterWriteVerdict.of(write, keepsExisting: change.keepsExisting, stored: stored, wasRemoved: tombstone != nil) {
        case .notFound:
            throw APIError.notFound("No such water entry.")
        case .preserveDeletion:
            let tombstone = tombstone!
            try await SyncConflictLog.record(
                userId: userId, type: WaterEntry.syncType, entityId: tombstone.entityId, resolution: .deletionPreserved,
                stored: WaterConflictSide(version: tombstone.version, modifiedAt: tombstone.deletedAt, deleted: true),
                incoming: WaterConflictSide(change, stamp: write.stamp), at: now, on: connection, logger: logger)
            return .deletionPreserved(id: tombstone.entityId, version: tombstone.version, deletedAt: tombstone.deletedAt)
        case .unchanged:
            return .unchanged(stored!)
        case .ignoreStale:
            let stored = stored!
            try await SyncConflictLog.record(
                userId: userId, type: WaterEntry.syncType, entityId: stored.entityId, resolution: .staleWriteIgnored,
                stored: WaterConflictSide(stored), incoming: WaterConflictSide(change, stamp: write.stamp), at: now, on: connection,
                logger: logger)
            return .ignored(stored: stored, resolution: .staleWriteIgnored)
        case .create:
            let entry = WaterEntry(
                id: id, userId: userId, date: change.date, millilitres: change.millilitres, version: 1, createdAt: now, updatedAt: now,
                modified: write.stamp)
            let seq = try await SyncClock.next(for: userId, on: connection, logger: logger)
            try await water.save(entry, seq: seq, on: connection, logger: logger)
            try await publish(days: [entry.date], userId: userId, now: now, on: connection, logger: logger)
            return .created(entry)
        case .apply(let overrodeNewerEdit):
            let stored = stored!
            var entry = stored
            entry.version += 1
            entry.updatedAt = now
            entry.modified = write.stamp
            if overrodeNewerEdit {
                try await SyncConflictLog.record(
                    userId: userId, type: WaterEntry.syncType, entityId: stored.entityId, resolution: .deletionOverrodeEdit,
                    stored: WaterConflictSide(stored), incoming: WaterConflictSide(version: nil, modifiedAt: write.stamp.date, deleted: true),
                    at: now, on: connection, logger: logger)
            }
            // Taken last, after the entry's lock (SyncClock).
            let seq = try await SyncClock.next(for: userId, on: connection, logger: logger)
            if write.isDeletion {
                try await water.delete(userId: userId, id: id, on: connection, logger: logger)
                try await SyncTombstones.record(
                    SyncTombstone(entityType: WaterEntry.syncType, entityId: entry.entityId, version: entry.version, deletedAt: now, seq: seq),
                    userId: userId, on: connection, logger: logger)
                try await publish(days: [stored.date], userId: userId, now: now, on: connection, logger: logger)
                return .removed(entry)
            }
            entry.date = change.date
            entry.millilitres = change.millilitres
            try await water.save(entry, seq: seq, on: connection, logger: logger)
            try await publish(days: Set([stored.date, entry.date]), userId: userId, now: now, on: connection, logger: logger)
            return .updated(entry)
        }
    }

    /// Appends the `water.logged` of each of `days` with its new total and version, in date order.
    private func publish(
        days: Set<CalendarDate>, userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        for date in days.sorted() {
            let total = try await water.nextTotal(userId: userId, date: date, on: connection, logger: logger)
            let envelope = EventEnvelope(source: "metrics", subject: userId.uuidString.lowercased(), data: total.event(at: now), time: now)
            try await Outbox.append(envelope, on: connection, logger: logger)
        }
    }
}
