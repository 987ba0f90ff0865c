import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Every change of a user's day: the row, its next version and its `weight.logged` event commit in one transaction.
struct DailyMetricsStore: Sendable {
    let client: PostgresPool
    let days: DailyMetricsRepository
    let now: @Sendable () -> Date
    let logger: Logger

    /// Applies `change` to the user's day under a row lock and gives the day its next version. `change` may
    /// throw (such as 404 for removing what is not there), which leaves the day untouched.
    func change(
        userId: UUID, date: CalendarDate, _ change: @Sendable (inout DailyMetrics) throws -> Void
    ) async throws -> (before: DailyMetrics, after: DailyMetrics) {
        let now = now()
        return try await client.transaction(logger: logger) { connection in
            let before = try await days.lock(userId: userId, date: date, now: now, on: connection)
            var after = before
            try change(&after)
            if after.isEmpty { after.notes = nil }
            after.version += 1
            after.updatedAt = now
            try await days.save(after, on: connection)
            let envelope = EventEnvelope(source: "metrics", subject: userId.uuidString.lowercased(), data: after.event, time: now)
            try await Outbox.append(envelope, on: connection, logger: logger)
            return (before, after)
        }
    }
}
