import Foundation
import Logging
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// History retention: empties each user's days (and removes their water entries) older than today in their zone minus their `historyRetentionDays`,
/// through the same path as the user's own removal (`DayChangeWriter`: tombstone, next version, `weight.logged`), in
/// small batches whose rows are taken with `FOR UPDATE SKIP LOCKED`, so replicas running it at once never empty the
/// same day twice. The periodic job calls `purge(now:logger:)`; tests call it directly.
struct HistoryRetentionPurge: Sendable {
    let client: PostgresPool
    let days: DailyMetricsRepository
    var water = WaterEntryRepository()
    let profiles: MetricsProfileRepository
    /// Days emptied per transaction.
    var batchSize = 100

    /// The stamp of a retention removal's tiebreak.
    static let tiebreak = "history-retention"

    /// Empties every expired day of every user who keeps a limited history; returns how many days and water entries went.
    @discardableResult
    func purge(now: Date, logger: Logger) async throws -> Int {
        let retentions = try await client.withConnection { connection in try await profiles.retentions(on: connection, logger: logger) }
        var purged = 0
        for (userId, retention) in retentions {
            purged += try await purge(userId: userId, before: retention.firstKeptDate(now: now), now: now, logger: logger)
        }
        if purged > 0 { logger.info("history past its retention removed", metadata: ["days": "\(purged)"]) }
        return purged
    }

    /// Empties the user's recorded days before `cutoff`, one batch per transaction.
    private func purge(userId: UUID, before cutoff: CalendarDate, now: Date, logger: Logger) async throws -> Int {
        let writer = DayChangeWriter(days: days)
        let write = DayWrite(stamp: WriteStamp(now, tiebreak: Self.tiebreak), isDeletion: true, isServerTimed: true)
        var purged = 0
        while true {
            let emptied = try await client.transaction(logger: logger) { connection in
                let expired = try await days.lockRecordedDays(userId: userId, before: cutoff, limit: batchSize, on: connection, logger: logger)
                for date in expired {
                    _ = try await writer.write(userId: userId, date: date, write: write, now: now, on: connection, logger: logger) { day in
                        day.weightKg = nil
                        day.ketones = nil
                    }
                }
                return expired.count
            }
            purged += emptied
            if emptied < batchSize { break }
        }
        return purged + (try await purgeWater(userId: userId, before: cutoff, now: now, logger: logger))
    }

    /// Removes the user's water entries before `cutoff` as the user's own removal would (tombstone, `water.logged`),
    /// one batch per transaction.
    private func purgeWater(userId: UUID, before cutoff: CalendarDate, now: Date, logger: Logger) async throws -> Int {
        let writer = WaterChangeWriter(water: water)
        let write = DayWrite(stamp: WriteStamp(now, tiebreak: Self.tiebreak), isDeletion: true, isServerTimed: true)
        var purged = 0
        while true {
            let removed = try await client.transaction(logger: logger) { connection in
                let expired = try await water.lockEntries(userId: userId, before: cutoff, limit: batchSize, on: connection, logger: logger)
                for entry in expired {
                    _ = try await writer.write(
                        userId: userId, WaterWrite(id: entry.id, date: entry.date, millilitres: entry.millilitres, write: write), now: now,
                        on: connection, logger: logger)
                }
                return expired.count
            }
            purged += removed
            if removed < batchSize { return purged }
        }
    }
}
