import BackendKit
import Foundation
import Logging
import PostgresSupport
import SyncContracts

/// The meals area's changes and conflicts in PostgreSQL: three reads in one repeatable-read transaction.
struct PostgresMealsChangeFeed: MealsChangeFeed {
    let client: PostgresPool
    let meals: MealRepository
    let customMeals: CustomMealRepository

    func changes(userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> MealsChanges? {
        try await client.transaction(logger: logger) { connection in
            // One snapshot for the three reads, so a change committed between them cannot be skipped.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            guard try await !SyncClock.isExpired(since, userId: userId, on: connection, logger: logger) else { return nil }
            return MealsChanges(
                meals: try await meals.changed(userId: userId, since: since, limit: limit, on: connection, logger: logger)
                    .map { (seq: $0.0, record: $0.1) },
                customMeals: try await customMeals.changed(userId: userId, since: since, limit: limit, on: connection, logger: logger)
                    .map { (seq: $0.0, record: $0.1) },
                tombstones: try await SyncTombstones.changed(userId: userId, since: since, limit: limit, on: connection, logger: logger))
        }
    }

    func conflicts(userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue> {
        try await SyncConflictLog.list(userId: userId, limit: limit, cursor: cursor, client: client, logger: logger)
    }
}
