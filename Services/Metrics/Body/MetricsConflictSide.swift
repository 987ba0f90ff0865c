import Foundation
import ServiceDefaults
import SyncContracts

/// One side of a recorded conflict of a day: its version (the stored side), stamp and state, in kilograms; `deleted`
/// for an emptied day or a removal.
struct MetricsConflictSide: Encodable, Sendable {
    var version: Int?
    var modifiedAt: Date?
    var deleted: Bool?
    var data: Data?

    /// The day's state as the conflict log keeps it.
    struct Data: Encodable, Sendable {
        var date: CalendarDate
        var weightKg: Double?
        var ketones: Double?
        var notes: String?
    }

    /// The stored side: `day` as it is.
    static func stored(_ day: DailyMetrics) -> MetricsConflictSide {
        MetricsConflictSide(
            version: day.version, modifiedAt: day.modified?.date, deleted: day.isEmpty ? true : nil, data: day.isEmpty ? nil : Data(day))
    }

    /// The incoming side: the day as the write would have made it, stamped `at`.
    static func incoming(_ day: DailyMetrics, at stamp: WriteStamp, isDeletion: Bool) -> MetricsConflictSide {
        MetricsConflictSide(
            version: nil, modifiedAt: stamp.date, deleted: isDeletion && day.isEmpty ? true : nil, data: day.isEmpty ? nil : Data(day))
    }
}

extension MetricsConflictSide.Data {
    init(_ day: DailyMetrics) {
        self.init(date: day.date, weightKg: day.weightKg, ketones: day.ketones, notes: day.notes)
    }
}
