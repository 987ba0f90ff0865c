import Foundation
import Hummingbird
import ServiceDefaults

/// One water entry as the routes and the changes feed answer it.
struct WaterEntryBody: ResponseCodable, Equatable {
    var id: UUID
    var date: CalendarDate
    var millilitres: Int
    var version: Int
    var createdAt: Date
    var updatedAt: Date
    var modifiedAt: Date

    init(_ entry: WaterEntry) {
        id = entry.id
        date = entry.date
        millilitres = entry.millilitres
        version = entry.version
        createdAt = entry.createdAt
        updatedAt = entry.updatedAt
        modifiedAt = entry.modified.date
    }
}

/// One day of `GET /api/metrics/water`: its total and its entries as they were logged.
struct WaterDayBody: Codable, Sendable, Equatable {
    var date: CalendarDate
    var totalMillilitres: Int
    var entries: [WaterEntryBody]

    /// Each day of `entries` (sorted by day) that has any.
    static func days(_ entries: [WaterEntry]) -> [WaterDayBody] {
        var days: [WaterDayBody] = []
        for entry in entries {
            if days.last?.date != entry.date { days.append(WaterDayBody(date: entry.date, totalMillilitres: 0, entries: [])) }
            days[days.count - 1].totalMillilitres += entry.millilitres
            days[days.count - 1].entries.append(WaterEntryBody(entry))
        }
        return days
    }
}

/// What is left of a removed water entry, as a `deletion_preserved` answer shows it.
struct WaterTombstoneBody: Codable, Sendable, Equatable {
    var id: String
    var type = WaterEntry.syncType
    var version: Int
    var deleted = true
    var deletedAt: Date
}
