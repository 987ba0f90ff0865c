import Foundation
import ServiceDefaults

/// One user's calendar day: the key of a `daily_summaries` row, collected while a batch changes meals so that
/// each touched day is recomputed once.
struct UserDay: Hashable, Sendable {
    let userId: UUID
    let day: CalendarDate
}
