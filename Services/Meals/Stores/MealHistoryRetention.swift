import Foundation
import Logging
import PostgresSupport
import ServiceDefaults

/// History retention: deletes each user's meals dated before today in their zone minus their `historyRetentionDays`,
/// through the same path as the user's own deletion (`MealStore.remove`: tombstone, `meal.deleted`, so trends and
/// sharing follow), in small batches whose rows are taken with `FOR UPDATE SKIP LOCKED`, so replicas running it at
/// once never delete the same meal twice. Custom meals are kept. The periodic job calls `purge(now:logger:)`; tests
/// call it directly.
struct MealHistoryRetention: Sendable {
    let client: PostgresPool
    let meals: MealRepository
    let profiles: ProfileRepository
    let store: PostgresMealStore
    /// Meals deleted per transaction.
    var batchSize = 100

    /// Deletes every expired meal of every user who keeps a limited history; returns how many went.
    @discardableResult
    func purge(now: Date, logger: Logger) async throws -> Int {
        var purged = 0
        for (userId, retention) in try await profiles.retentions(client: client, logger: logger) {
            purged += try await purge(userId: userId, before: retention.firstKeptDate(now: now), logger: logger)
        }
        if purged > 0 { logger.info("meals past their history retention deleted", metadata: ["meals": "\(purged)"]) }
        return purged
    }

    /// Deletes the user's meals dated before `cutoff`, one batch per transaction.
    private func purge(userId: UUID, before cutoff: CalendarDate, logger: Logger) async throws -> Int {
        var purged = 0
        while true {
            let deleted = try await client.transaction(logger: logger) { connection in
                let expired = try await meals.lockOlder(
                    userId: userId, before: cutoff.description, limit: batchSize, on: connection, logger: logger)
                for meal in expired { try await store.remove(meal, on: connection, logger: logger) }
                return expired.count
            }
            purged += deleted
            if deleted < batchSize { return purged }
        }
    }
}
