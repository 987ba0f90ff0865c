import BackendKit
import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

/// Meals in PostgreSQL: every write's row (and photo), version or last-write-wins check, change number, tombstone
/// of a deletion, recorded conflicts and events commit in one transaction; photos are sealed at rest (`PhotoVault`).
/// Every call logs to the request's `logger`.
struct PostgresMealStore: MealStore {
    let client: PostgresPool
    let meals: MealRepository
    /// Seals photos and makes their thumbnails, before a write's transaction opens; opens them when read.
    let photos: PhotoVault
    let now: @Sendable () -> Date
    private let photoRows = PhotoRepository()

    func find(_ id: UUID, userId: UUID, logger: Logger) async throws -> MealRecord? {
        try await meals.find(id, userId: userId, client: client, logger: logger)
    }

    func list(userId: UUID, filter: MealListFilter, logger: Logger) async throws -> [MealRecord] {
        try await meals.list(userId: userId, filter: filter, client: client, logger: logger)
    }

    func photo(mealId: UUID, userId: UUID, logger: Logger) async throws -> StoredPhoto? {
        try await photoRows.photo(mealId: mealId, userId: userId, client: client, logger: logger).map(photos.open)
    }

    func photo(id: UUID, logger: Logger) async throws -> StoredPhoto? {
        try await photoRows.photo(photoId: id, client: client, logger: logger).map(photos.open)
    }

    func thumbnail(photoId: UUID, logger: Logger) async throws -> StoredPhoto? {
        guard let (keyId, sealed) = try await photoRows.thumbnail(photoId: photoId, client: client, logger: logger) else { return nil }
        let jpeg = try photos.openThumbnail(sealed, keyId: keyId, photoId: photoId)
        return StoredPhoto(mediaType: "image/jpeg", bytes: ByteBuffer(bytes: jpeg))
    }

    func create(_ meal: MealRecord, photo: PhotoUpload?, logger: Logger) async throws -> MealRecord {
        var meal = meal
        var sealed: SealedPhoto?
        if let photo, let photoId = meal.photoId {
            sealed = try await photos.prepare(photo, photoId: photoId, logger: logger)
            meal.thumbnail = sealed?.thumbnailState
        }
        try await client.transaction(logger: logger) { [meal, sealed] connection in
            try await insert(meal, photo: sealed, on: connection, logger: logger)
        }
        return meal
    }

    func createIfAbsent(_ meal: MealRecord, logger: Logger) async throws -> CreateOutcome<MealRecord> {
        do {
            return try await createUnlessTaken(meal, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // Another request stored the id between this one's look and its insert (a device's retry, or two devices
            // importing one store): look again, and answer what it stored.
            return try await createUnlessTaken(meal, logger: logger)
        }
    }

    private func createUnlessTaken(_ meal: MealRecord, logger: Logger) async throws -> CreateOutcome<MealRecord> {
        try await client.transaction(logger: logger) { connection in
            if let existing = try await meals.find(meal.id, userId: meal.userId, on: connection, forUpdate: true, logger: logger) {
                return .exists(existing)
            }
            if let tombstone = try await SyncTombstones.find(
                type: MealRecord.entityType, id: meal.id.lowercasedString, userId: meal.userId, on: connection, logger: logger)
            {
                return .deleted(tombstone)
            }
            guard try await meals.isIdFree(meal.id, on: connection, logger: logger) else { return .idTaken }
            try await insert(meal, photo: nil, on: connection, logger: logger)
            return .created(meal)
        }
    }

    func update(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, _ change: @Sendable (inout MealRecord) throws -> Bool
    ) async throws -> WriteOutcome<MealRecord> {
        try await write(id, userId: userId, condition: condition, logger: logger, change: change, alongside: { _, _ in })
    }

    func changePhoto(
        _ photoChange: PhotoChange, of id: UUID, userId: UUID, condition: WriteCondition, logger: Logger
    ) async throws -> WriteOutcome<MealRecord> {
        let newPhotoId = UUID()
        let storedAt = now()
        let sealed: SealedPhoto? =
            if case .replace(let photo) = photoChange { try await photos.prepare(photo, photoId: newPhotoId, logger: logger) } else { nil }
        return try await write(
            id, userId: userId, condition: condition, logger: logger,
            change: { meal in
                switch sealed {
                case let sealed?:
                    meal.photoId = newPhotoId
                    meal.thumbnail = sealed.thumbnailState
                case nil:
                    guard meal.hasPhoto else { return false }
                    meal.photoId = nil
                    meal.thumbnail = nil
                }
                return true
            },
            alongside: { meal, connection in
                try await meals.deletePhoto(mealId: meal.id, userId: meal.userId, on: connection, logger: logger)
                if let sealed {
                    try await photoRows.save(sealed, mealId: meal.id, userId: meal.userId, storedAt: storedAt, on: connection, logger: logger)
                }
            })
    }

    /// The path of every change of a stored meal; `alongside` writes what goes with an applied change in its transaction.
    private func write(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, change: @Sendable (inout MealRecord) throws -> Bool,
        alongside: @Sendable (MealRecord, PostgresConnection) async throws -> Void
    ) async throws -> WriteOutcome<MealRecord> {
        try await client.transaction(logger: logger) { connection in
            guard var meal = try await meals.find(id, userId: userId, on: connection, forUpdate: true, logger: logger) else {
                let tombstone = try await MissingEntity.write(
                    type: MealRecord.entityType, id: id, userId: userId, condition: condition, notFound: MealRecord.notFound, now: now(),
                    on: connection,
                    logger: logger)
                return .deleted(tombstone, .deletionPreserved)
            }
            switch try condition.verdict(storedVersion: meal.version, storedStamp: meal.modified, resource: "meal") {
            case .apply: break
            case .unchanged, .preserveDeletion: return .written(meal)
            case .ignoreStale:
                try await SyncConflictLog.record(
                    userId: userId, type: MealRecord.entityType, entityId: id.lowercasedString, resolution: .staleWriteIgnored,
                    stored: SyncConflictSide(version: meal.version, modifiedAt: meal.modified.date, data: meal.snapshot),
                    incoming: condition.incomingSide(now: now()), at: now(), on: connection,
                    logger: logger)
                return .kept(meal, .staleWriteIgnored)
            }
            let wasConsumed = meal.isConsumed
            let now = now()
            let stamp = condition.stamp(now: WriteStamp(now, tiebreak: ""), stored: meal.modified)
            guard try change(&meal) else {
                // Nothing to change, but the write is the latest: an older one arriving later must still lose to it.
                if stamp > meal.modified {
                    meal.modified = stamp
                    try await meals.saveStamp(meal, on: connection, logger: logger)
                }
                return .written(meal)
            }
            meal.version += 1
            meal.updatedAt = now
            meal.modified = stamp
            try await meals.update(meal, on: connection, logger: logger)
            try await alongside(meal, connection)
            try await MealEventPublisher.changed(meal, wasConsumed: wasConsumed, now: now, on: connection, logger: logger)
            return .written(meal)
        }
    }

    func delete(_ id: UUID, userId: UUID, stamp: WriteStamp?, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            guard let meal = try await meals.find(id, userId: userId, on: connection, forUpdate: true, logger: logger) else {
                try await MissingEntity.tombstone(
                    type: MealRecord.entityType, id: id, userId: userId, notFound: MealRecord.notFound, on: connection, logger: logger)
                return
            }
            if let stamp, LastWriteWins.deletionOverridesNewerEdit(deletion: stamp, stored: meal.modified) {
                try await SyncConflictLog.record(
                    userId: userId, type: MealRecord.entityType, entityId: id.lowercasedString, resolution: .deletionOverrodeEdit,
                    stored: SyncConflictSide(version: meal.version, modifiedAt: meal.modified.date, data: meal.snapshot),
                    incoming: SyncConflictSide<MealSnapshot>(version: nil, modifiedAt: stamp.date, deleted: true, data: nil), at: now(),
                    on: connection, logger: logger)
            }
            try await remove(meal, on: connection, logger: logger)
        }
    }

    /// Removes a locked meal inside the caller's transaction: its row and photo go, its tombstone and `meal.deleted`
    /// are written. The path of every deletion: a user's, and history retention's.
    func remove(_ meal: MealRecord, on connection: PostgresConnection, logger: Logger) async throws {
        guard try await meals.delete(meal.id, userId: meal.userId, on: connection, logger: logger) else { return }
        let seq = try await SyncClock.next(for: meal.userId, on: connection, logger: logger)
        try await SyncTombstones.record(
            SyncTombstone(
                entityType: MealRecord.entityType, entityId: meal.id.lowercasedString, version: meal.version + 1, deletedAt: now(), seq: seq),
            userId: meal.userId, on: connection, logger: logger)
        try await MealEventPublisher.deleted(meal, now: now(), on: connection, logger: logger)
    }

    private func insert(_ meal: MealRecord, photo: SealedPhoto?, on connection: PostgresConnection, logger: Logger) async throws {
        try await meals.insert(meal, on: connection, logger: logger)
        if let photo {
            try await photoRows.save(photo, mealId: meal.id, userId: meal.userId, storedAt: meal.createdAt, on: connection, logger: logger)
        }
        try await MealEventPublisher.changed(meal, wasConsumed: nil, now: now(), on: connection, logger: logger)
    }
}
