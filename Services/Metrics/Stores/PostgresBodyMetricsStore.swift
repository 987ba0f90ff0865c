import BackendKit
import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// `BodyMetricsStore` on the service's schema: a change locks the day's row, and the row, its next version, change
/// number, tombstone and `weight.logged` event (or the conflict it lost) commit in one transaction; a water entry's
/// change likewise with its `water.logged`.
struct PostgresBodyMetricsStore: BodyMetricsStore {
    let client: PostgresPool
    let days: DailyMetricsRepository
    let profiles: MetricsProfileRepository
    let water: WaterEntryRepository
    let now: @Sendable () -> Date

    func profile(of userId: UUID, logger: Logger) async throws -> MetricsProfile {
        try await client.withConnection { connection in try await profiles.profile(of: userId, on: connection, logger: logger) }
    }

    func days(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [DailyMetrics] {
        try await client.withConnection { connection in
            try await days.list(userId: userId, from: from, to: to, on: connection, logger: logger)
        }
    }

    func change(
        userId: UUID, date: CalendarDate, write: DayWrite, logger: Logger,
        _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> DayChangeOutcome {
        let now = now()
        let writer = DayChangeWriter(days: days)
        return try await client.transaction(logger: logger) { connection in
            try await writer.write(
                userId: userId, date: date, write: write, now: now, on: connection, logger: logger, change)
        }
    }

    func waterEntries(of userId: UUID, from: CalendarDate, to: CalendarDate, logger: Logger) async throws -> [WaterEntry] {
        try await client.withConnection { connection in
            try await water.list(userId: userId, from: from, to: to, on: connection, logger: logger)
        }
    }

    func changeWater(userId: UUID, _ change: WaterWrite, logger: Logger) async throws -> WaterChangeOutcome {
        let now = now()
        let writer = WaterChangeWriter(water: water)
        return try await client.transaction(logger: logger) { connection in
            try await writer.write(userId: userId, change, now: now, on: connection, logger: logger)
        }
    }

    func changes(of userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> [MetricsFeedEntry] {
        try await client.withConnection { connection in
            if try await SyncClock.isExpired(since, userId: userId, on: connection, logger: logger) { throw SyncFeedQuery.expired }
            return try await MetricsChangesFeed().changes(userId: userId, since: since, limit: limit, on: connection, logger: logger)
        }
    }

    func conflicts(of userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        try await SyncConflictLog.list(userId: userId, limit: limit, cursor: cursor, client: client, logger: logger)
    }
}
