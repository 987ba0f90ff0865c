import Foundation
import ServiceDefaults

/// A write of one water entry: its id (the client's, or one the server drew), the day and amount, and its stamp.
/// `keepsExisting`: an import item without `modifiedAt` only fills an id never written (a store sent again changes
/// nothing).
struct WaterWrite: Sendable, Equatable {
    var id: UUID
    var date: CalendarDate
    var millilitres: Int
    var write: DayWrite
    var keepsExisting = false
}
