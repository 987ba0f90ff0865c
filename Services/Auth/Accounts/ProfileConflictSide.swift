import Foundation

/// One side of a recorded profile conflict (`sync_conflicts.stored` / `.incoming`): the stored side's version, the
/// side's write time and its data (the stored profile body, or what the write asked for).
struct ProfileConflictSide<Data: Encodable & Sendable>: Encodable, Sendable {
    /// The stored side's version; absent on the incoming side.
    var version: Int?
    var modifiedAt: Date
    var data: Data
}
