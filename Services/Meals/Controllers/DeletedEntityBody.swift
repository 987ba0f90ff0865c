import BackendKit
import Foundation
import Hummingbird
import PostgresSupport
import SyncContracts

/// The answer to a write of a deleted meal or custom meal: its tombstone, and why the write was not applied.
struct DeletedEntityBody: ResponseCodable {
    var id: String
    var type: String
    var version: Int
    var deleted: Bool
    var deletedAt: Date
    var conflict: String

    init(_ tombstone: SyncTombstone, conflict: SyncConflictResolution) {
        id = tombstone.entityId
        type = tombstone.entityType
        version = tombstone.version
        deleted = true
        deletedAt = tombstone.deletedAt
        self.conflict = conflict.rawValue
    }
}
