import Foundation
import ServiceDefaults
import SyncContracts

/// One side of a recorded conflict of a water entry: its version (the stored side), stamp and state; `deleted` for a
/// removed entry or a removal.
struct WaterConflictSide: Encodable, Sendable {
    var version: Int?
    var modifiedAt: Date?
    var deleted: Bool?
    var data: Data?

    /// The entry's state as the conflict log keeps it.
    struct Data: Encodable, Sendable {
        var date: CalendarDate
        var millilitres: Int
    }

    init(version: Int?, modifiedAt: Date?, deleted: Bool?, data: Data? = nil) {
        self.version = version
        self.modifiedAt = modifiedAt
        self.deleted = deleted
        self.data = data
    }

    /// The stored side: `entry` as it is.
    init(_ entry: WaterEntry) {
        self.init(version: entry.version, modifiedAt: entry.modified.date, deleted: nil, data: Data(date: entry.date, millilitres: entry.millilitres))
    }

    /// The incoming side: the write as it came, stamped `stamp`.
    init(_ write: WaterWrite, stamp: WriteStamp) {
        self.init(version: nil, modifiedAt: stamp.date, deleted: nil, data: Data(date: write.date, millilitres: write.millilitres))
    }
}
