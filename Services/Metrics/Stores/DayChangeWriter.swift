import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

/// The one path every change of a day takes inside its caller's transaction (a user's write, an import item, the
/// history-retention purge): lock the day, apply the change, decide last-write-wins, and, when it applies, store the
/// day with its next version, change number and tombstone, and append its `weight.logged`; when it loses, record the
/// conflict.
struct DayChangeWriter: Sendable {
    let days: DailyMetricsRepository

    /// Applies `change` to the user's day for `write`, at `now`.
    /// `change` may throw (such as 404 for removing what is not there), which leaves the day untouched.
    func write(
        userId: UUID, date: CalendarDate, write: DayWrite, now: Date, on connection: PostgresConnection,
        logger: Logger, _ change: (inout DailyMetrics) throws -> Void
    ) async throws -> DayChangeOutcome {
        let before = try await days.lock(userId: userId, date: date, now: now, on: connection, logger: logger)
        var after = before
        try change(&after)
        switch DayWriteVerdict.of(write, stored: before) {
        case .unchanged:
            return .unchanged(before)
        case .ignore(let resolution):
            try await SyncConflictLog.record(
                userId: userId, type: DailyMetrics.syncType, entityId: date.description, resolution: resolution,
                stored: MetricsConflictSide.stored(before),
                incoming: MetricsConflictSide.incoming(after, at: write.stamp, isDeletion: write.isDeletion),
                at: now, on: connection, logger: logger)
            return .ignored(stored: before, resolution: resolution)
        case .apply(let overrodeNewerEdit):
            after.finishChange(at: now, stamp: write.stamp)
            if overrodeNewerEdit {
                try await SyncConflictLog.record(
                    userId: userId, type: DailyMetrics.syncType, entityId: date.description, resolution: .deletionOverrodeEdit,
                    stored: MetricsConflictSide.stored(before), incoming: MetricsConflictSide.incoming(after, at: write.stamp, isDeletion: true),
                    at: now, on: connection, logger: logger)
            }
            // Taken last, after the day's row lock (SyncClock).
            let seq = try await SyncClock.next(for: userId, on: connection, logger: logger)
            try await days.save(after, seq: seq, on: connection, logger: logger)
            if after.isEmpty {
                try await SyncTombstones.record(
                    SyncTombstone(entityType: DailyMetrics.syncType, entityId: date.description, version: after.version, deletedAt: now, seq: seq),
                    userId: userId, on: connection, logger: logger)
            } else if before.isEmpty && before.version > 0 {
                try await SyncTombstones.remove(type: DailyMetrics.syncType, id: date.description, userId: userId, on: connection, logger: logger)
            }
            let envelope = EventEnvelope(source: "metrics", subject: userId.lowercasedString, data: after.event, time: now)
            try await Outbox.append(envelope, on: connection, logger: logger)
            return .applied(before: before, after: after)
        }
    }
}
