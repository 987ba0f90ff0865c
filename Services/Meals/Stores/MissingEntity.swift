import BackendKit
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

/// What the meal and custom-meal stores make of a write or deletion of an entity that is not stored: a deleted one
/// stays deleted (its tombstone answers), one the caller never had is 404.
enum MissingEntity {
    /// A write of a missing entity: with last-write-wins, the tombstone of a deleted one (the write is recorded as a
    /// `deletion_preserved` conflict); otherwise, or when there is no tombstone, 404 `notFound`.
    static func write(
        type: String, id: UUID, userId: UUID, condition: WriteCondition, notFound: String, now: Date, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> SyncTombstone {
        guard case .lastWriteWins = condition else { throw APIError.notFound(notFound) }
        let tombstone = try await self.tombstone(type: type, id: id, userId: userId, notFound: notFound, on: connection, logger: logger)
        try await SyncConflictLog.record(
            userId: userId, type: type, entityId: tombstone.entityId, resolution: .deletionPreserved,
            stored: SyncConflictSide<JSONValue>(version: tombstone.version, modifiedAt: tombstone.deletedAt, deleted: true, data: nil),
            incoming: condition.incomingSide(now: now), at: now, on: connection, logger: logger)
        return tombstone
    }

    /// The tombstone of the caller's deleted entity (deleting it again changes nothing); 404 `notFound` without one.
    @discardableResult
    static func tombstone(
        type: String, id: UUID, userId: UUID, notFound: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> SyncTombstone {
        guard
            let tombstone = try await SyncTombstones.find(type: type, id: id.lowercasedString, userId: userId, on: connection, logger: logger)
        else { throw APIError.notFound(notFound) }
        return tombstone
    }
}
