import Foundation
import Hummingbird
import ServiceDefaults

/// A day's weight in the unit asked for, with the stored kilograms.
struct WeightEntryBody: ResponseCodable, Equatable {
    var date: CalendarDate
    var weight: Double
    var unit: WeightUnit
    var weightKg: Double
    var notes: String?
    var version: Int
    var updatedAt: Date

    /// nil for a day without a weight.
    init?(_ day: DailyMetrics, unit: WeightUnit) {
        guard let kilograms = day.weightKg else { return nil }
        date = day.date
        weight = unit.display(kilograms)
        self.unit = unit
        weightKg = WeightUnit.kg.display(kilograms)
        notes = day.notes
        version = day.version
        updatedAt = day.updatedAt
    }
}

/// A day's ketone level.
struct KetoneEntryBody: ResponseCodable, Equatable {
    var date: CalendarDate
    /// mmol/L.
    var level: Double
    /// Whether the level is above 0.5 mmol/L.
    var inKetosis: Bool
    var notes: String?
    var version: Int
    var updatedAt: Date

    init?(_ day: DailyMetrics) {
        guard let level = day.ketones else { return nil }
        date = day.date
        self.level = level
        inKetosis = level > BodyMetricLimits.ketosisThreshold
        notes = day.notes
        version = day.version
        updatedAt = day.updatedAt
    }
}

/// One day of `GET /api/metrics/daily`.
struct DailyMetricsBody: Codable, Sendable, Equatable {
    var date: CalendarDate
    var weight: Double?
    var unit: WeightUnit
    var weightKg: Double?
    var ketones: Double?
    var inKetosis: Bool?
    var notes: String?
    var version: Int

    init(_ day: DailyMetrics, unit: WeightUnit) {
        date = day.date
        weight = day.weightKg.map(unit.display)
        self.unit = unit
        weightKg = day.weightKg.map(WeightUnit.kg.display)
        ketones = day.ketones
        inKetosis = day.inKetosis
        notes = day.notes
        version = day.version
    }
}

/// A date range of entries, oldest first.
struct MetricsListBody<Entry: Codable & Sendable>: ResponseCodable {
    var from: CalendarDate
    var to: CalendarDate
    var entries: [Entry]
}
