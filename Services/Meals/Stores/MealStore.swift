import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Every write of a meal: the row (and photo), the version check and the events commit in one transaction.
/// Every call logs to the request's `logger`.
struct MealStore: Sendable {
    let client: PostgresPool
    let meals: MealRepository
    let now: @Sendable () -> Date

    /// Stores a new meal (and its photo) with its events.
    func create(_ meal: MealRecord, photo: PhotoUpload?, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await meals.insert(meal, on: connection, logger: logger)
            if let photo { try await meals.savePhoto(photo, mealId: meal.id, userId: meal.userId, on: connection, logger: logger) }
            try await MealEventPublisher.changed(meal, wasConsumed: nil, now: now(), on: connection, logger: logger)
        }
    }

    /// Changes the caller's meal under a row lock: 404 when it is not theirs, 409 when `expectedVersion` is
    /// stale; `change` edits the record and says whether it changed anything; a change gets the next version
    /// and its events, no change writes nothing.
    func update(
        _ id: UUID, userId: UUID, expectedVersion: Int?, logger: Logger, _ change: @Sendable (inout MealRecord) throws -> Bool
    ) async throws -> MealRecord {
        let updated = try await client.transaction(logger: logger) { connection in
            guard var meal = try await meals.find(id, userId: userId, on: connection, forUpdate: true, logger: logger) else {
                throw APIError.notFound("No such meal.")
            }
            try RequestPreconditions.requireVersion(expectedVersion, current: meal.version, of: "meal")
            let wasConsumed = meal.isConsumed
            guard try change(&meal) else { return meal }
            meal.version += 1
            meal.updatedAt = now()
            try await meals.update(meal, on: connection, logger: logger)
            try await MealEventPublisher.changed(meal, wasConsumed: wasConsumed, now: now(), on: connection, logger: logger)
            return meal
        }
        return updated
    }

    /// Deletes the caller's meal and its photo; 404 when it is not theirs.
    func delete(_ id: UUID, userId: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            guard let meal = try await meals.find(id, userId: userId, on: connection, forUpdate: true, logger: logger),
                try await meals.delete(id, userId: userId, on: connection, logger: logger)
            else { throw APIError.notFound("No such meal.") }
            try await MealEventPublisher.deleted(meal, now: now(), on: connection, logger: logger)
        }
    }
}
