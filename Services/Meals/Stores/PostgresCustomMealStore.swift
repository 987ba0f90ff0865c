import BackendKit
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

/// Custom meals in PostgreSQL: every write's row, version or last-write-wins check, change number and the tombstone of
/// a deletion commit in one transaction. Custom meals publish no events. Every call logs to the request's `logger`.
struct PostgresCustomMealStore: CustomMealStore {
    let client: PostgresPool
    let customMeals: CustomMealRepository
    let now: @Sendable () -> Date

    func find(_ id: UUID, userId: UUID, logger: Logger) async throws -> CustomMealRecord? {
        try await customMeals.find(id, userId: userId, client: client, logger: logger)
    }

    func list(userId: UUID, after: (name: String, id: UUID)?, limit: Int, logger: Logger) async throws -> [CustomMealRecord] {
        try await customMeals.list(userId: userId, after: after, limit: limit, client: client, logger: logger)
    }

    func create(_ meal: CustomMealRecord, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await customMeals.save(meal, on: connection, logger: logger)
        }
    }

    func createIfAbsent(_ meal: CustomMealRecord, logger: Logger) async throws -> CreateOutcome<CustomMealRecord> {
        do {
            return try await createUnlessTaken(meal, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // Another request stored the id between this one's look and its insert: look again, and answer what it stored.
            return try await createUnlessTaken(meal, logger: logger)
        }
    }

    private func createUnlessTaken(_ meal: CustomMealRecord, logger: Logger) async throws -> CreateOutcome<CustomMealRecord> {
        try await client.transaction(logger: logger) { connection in
            if let existing = try await customMeals.find(meal.id, userId: meal.userId, on: connection, forUpdate: true, logger: logger) {
                return .exists(existing)
            }
            if let tombstone = try await SyncTombstones.find(
                type: CustomMealRecord.entityType, id: meal.id.uuidString.lowercased(), userId: meal.userId, on: connection, logger: logger)
            {
                return .deleted(tombstone)
            }
            guard try await customMeals.isIdFree(meal.id, on: connection, logger: logger) else { return .idTaken }
            try await customMeals.insert(meal, on: connection, logger: logger)
            return .created(meal)
        }
    }

    func replace(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, _ change: @Sendable (inout CustomMealRecord) -> Void
    ) async throws -> WriteOutcome<CustomMealRecord> {
        try await client.transaction(logger: logger) { connection in
            let entityId = id.lowercasedString
            guard var meal = try await customMeals.find(id, userId: userId, on: connection, forUpdate: true, logger: logger) else {
                let tombstone = try await MissingEntity.write(
                    type: CustomMealRecord.entityType, id: id, userId: userId, condition: condition, notFound: CustomMealRecord.notFound, now: now(),
                    on: connection,
                    logger: logger)
                return .deleted(tombstone, .deletionPreserved)
            }
            switch try condition.verdict(storedVersion: meal.version, storedStamp: meal.modified, resource: "custom meal") {
            case .apply: break
            case .unchanged, .preserveDeletion: return .written(meal)
            case .ignoreStale:
                try await SyncConflictLog.record(
                    userId: userId, type: CustomMealRecord.entityType, entityId: entityId, resolution: .staleWriteIgnored,
                    stored: SyncConflictSide(
                        version: meal.version, modifiedAt: meal.modified.date,
                        data: CustomMealState(name: meal.name, mealType: meal.mealType?.rawValue, items: meal.items)),
                    incoming: condition.incomingSide(now: now()), at: now(), on: connection,
                    logger: logger)
                return .kept(meal, .staleWriteIgnored)
            }
            let now = now()
            change(&meal)
            meal.version += 1
            meal.updatedAt = now
            meal.modified = condition.stamp(now: WriteStamp(now, tiebreak: ""), stored: meal.modified)
            try await customMeals.save(meal, on: connection, logger: logger)
            return .written(meal)
        }
    }

    func delete(_ id: UUID, userId: UUID, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            let entityId = id.lowercasedString
            guard let meal = try await customMeals.find(id, userId: userId, on: connection, forUpdate: true, logger: logger) else {
                try await MissingEntity.tombstone(
                    type: CustomMealRecord.entityType, id: id, userId: userId, notFound: CustomMealRecord.notFound, on: connection, logger: logger)
                return
            }
            _ = try await customMeals.delete(id, userId: userId, on: connection, logger: logger)
            let seq = try await SyncClock.next(for: userId, on: connection, logger: logger)
            try await SyncTombstones.record(
                SyncTombstone(entityType: CustomMealRecord.entityType, entityId: entityId, version: meal.version + 1, deletedAt: now(), seq: seq),
                userId: userId, on: connection, logger: logger)
        }
    }
}
