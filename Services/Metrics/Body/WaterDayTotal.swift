import EventContracts
import Foundation
import ServiceDefaults

/// One user's water of one calendar day after a change: the sum of its entries and the day's water version, which
/// `water.logged` carries.
struct WaterDayTotal: Sendable, Equatable {
    var userId: UUID
    var date: CalendarDate
    var totalMillilitres: Int
    var entryCount: Int
    var version: Int

    /// The day's total as `water.logged` carries it, stamped `at`.
    func event(at loggedAt: Date) -> WaterLogged {
        WaterLogged(
            userId: userId, date: date.description, totalMillilitres: totalMillilitres, entryCount: entryCount, loggedAt: loggedAt,
            version: version)
    }
}
