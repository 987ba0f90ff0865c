import Foundation

/// One entry of the metrics area of the changes feed, as stored: a recorded day, or the tombstone of an emptied one.
enum MetricsFeedEntry: Sendable, Equatable {
    case day(seq: Int64, DailyMetrics)
    /// `date` is the day's id, `YYYY-MM-DD`.
    case removed(seq: Int64, date: String, version: Int, deletedAt: Date)

    var seq: Int64 {
        switch self {
        case .day(let seq, _), .removed(let seq, _, _, _): seq
        }
    }
}
