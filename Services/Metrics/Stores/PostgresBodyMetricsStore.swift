import EventContracts
import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// `BodyMetricsStore` on the service's schema: a change locks the day's row, and the row, its next version and its
/// `weight.logged` event commit in one transaction.
struct PostgresBodyMetricsStore: BodyMetricsStore {
    let client: PostgresPool
    let days: DailyMetricsRepository
    let profiles: MetricsProfileRepository
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
        userId: UUID, date: CalendarDate, logger: Logger, _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> (before: DailyMetrics, after: DailyMetrics) {
        let now = now()
        return try await client.transaction(logger: logger) { connection in
            let before = try await days.lock(userId: userId, date: date, now: now, on: connection, logger: logger)
            var after = before
            try change(&after)
            after.finishChange(at: now)
            try await days.save(after, on: connection, logger: logger)
            let envelope = EventEnvelope(source: "metrics", subject: userId.uuidString.lowercased(), data: after.event, time: now)
            try await Outbox.append(envelope, on: connection, logger: logger)
            return (before, after)
        }
    }
}
