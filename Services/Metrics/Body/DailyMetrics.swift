import EventContracts
import Foundation
import ServiceDefaults
import SyncContracts

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
    /// The stamp of the last applied write (last-write-wins); nil for a day never written.
    var modified: WriteStamp?

    /// The entity type of a day in the changes feed and the conflict log.
    static let syncType = "body_metrics_day"

    /// Whether anything is left of the day (a removed weight and ketone level leave a tombstone row).
    var isEmpty: Bool { weightKg == nil && ketones == nil }

    var inKetosis: Bool? { ketones.map { $0 > BodyMetricLimits.ketosisThreshold } }

    /// Closes a change made at `now` by a write stamped `stamp`: an emptied day keeps no notes, and the day gets its
    /// next version.
    mutating func finishChange(at now: Date, stamp: WriteStamp) {
        if isEmpty { notes = nil }
        version += 1
        updatedAt = now
        modified = stamp
    }

    /// The day's full record as `weight.logged` carries it.
    var event: WeightLogged {
        WeightLogged(
            userId: userId, date: date.description, weightKg: weightKg, ketonesMmolPerLiter: ketones, notes: notes, loggedAt: updatedAt,
            version: version)
    }
}
