import EventContracts
import Foundation
import ServiceDefaults
import SyncContracts
import WireJSON

/// One drink the user logged: several a day, each its own entity (its id is the client's or the server's UUID), summed
/// per day. A removed entry leaves a tombstone, never a row.
struct WaterEntry: Sendable, Equatable {
    var id: UUID
    var userId: UUID
    var date: CalendarDate
    var millilitres: Int
    var version: Int
    var createdAt: Date
    var updatedAt: Date
    /// The stamp of the last applied write (last-write-wins).
    var modified: WriteStamp

    /// The entity type of an entry in the changes feed, the conflict log and the import's answers.
    static let syncType = "water_entry"

    /// The entry's id as the feed, tombstones and conflicts spell it.
    var entityId: String { id.lowercasedString }
}
