import Foundation

/// What is left of an emptied day (weight and ketones both removed), as a conflict answer shows it.
struct MetricsDayTombstoneBody: Codable, Sendable, Equatable {
    /// The day, `YYYY-MM-DD`.
    var id: String
    var type = DailyMetrics.syncType
    var version: Int
    var deleted = true
    var deletedAt: Date

    init(_ day: DailyMetrics) {
        id = day.date.description
        version = day.version
        deletedAt = day.updatedAt
    }
}
