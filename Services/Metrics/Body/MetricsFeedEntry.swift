import Foundation

/// One entry of the metrics area of the changes feed, as stored: a recorded day, a water entry, or the tombstone of an
/// emptied day or a removed water entry.
enum MetricsFeedEntry: Sendable, Equatable {
    case day(seq: Int64, DailyMetrics)
    case water(seq: Int64, WaterEntry)
    /// `type` is `body_metrics_day` (`id` the day, `YYYY-MM-DD`) or `water_entry` (`id` the entry's UUID).
    case removed(seq: Int64, type: String, id: String, version: Int, deletedAt: Date)

    var seq: Int64 {
        switch self {
        case .day(let seq, _), .water(let seq, _), .removed(let seq, _, _, _, _): seq
        }
    }
}
