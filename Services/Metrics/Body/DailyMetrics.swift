import EventContracts
import Foundation
import ServiceDefaults

/// One user's body metrics for one calendar day.
struct DailyMetrics: Sendable, Equatable {
    var userId: UUID
    var date: CalendarDate
    var weightKg: Double?
    /// Blood ketones in mmol/L.
    var ketones: Double?
    var notes: String?
    var version: Int
    var updatedAt: Date

    /// Whether anything is left of the day (a removed weight and ketone level leave a tombstone row).
    var isEmpty: Bool { weightKg == nil && ketones == nil }

    var inKetosis: Bool? { ketones.map { $0 > BodyMetricLimits.ketosisThreshold } }

    /// Closes a change made at `now`: an emptied day keeps no notes, and the day gets its next version.
    mutating func finishChange(at now: Date) {
        if isEmpty { notes = nil }
        version += 1
        updatedAt = now
    }

    /// The day's full record as `weight.logged` carries it.
    var event: WeightLogged {
        WeightLogged(
            userId: userId, date: date.description, weightKg: weightKg, ketonesMmolPerLiter: ketones, notes: notes, loggedAt: updatedAt,
            version: version)
    }
}
