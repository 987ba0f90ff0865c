import Foundation
import ServiceDefaults
import SyncContracts

/// `POST /api/metrics/water`, and one `water` item of the import.
struct WaterRequest: Codable, Sendable {
    /// The client's id of the entry (any case); the server draws one when absent.
    var id: String?
    /// `YYYY-MM-DD`; today in the user's zone when absent.
    var date: String?
    /// Whole millilitres, 1 to 10000.
    var millilitres: Double
    /// When the client made the change (ISO 8601), for last-write-wins; the server's time when absent.
    var modifiedAt: String?

    /// The write this request asks for, for `profile` at `now`; `body` is the bytes it came in (the tiebreak of its
    /// stamp). 422 naming every bad field.
    func write(profile: MetricsProfile, now: Date, body: some Sequence<UInt8>) throws -> WaterWrite {
        var fields = MetricsFieldReader(profile: profile, now: now)
        let date = fields.date(date)
        let millilitres = fields.water(millilitres)
        let stamp = fields.stamp(modifiedAt, body: body)
        var entryId: UUID? = UUID()
        if let id {
            entryId = UUID(uuidString: id)
            if entryId == nil { fields.problems["id"] = "Use a UUID such as 0b7e6f1c-5d0a-4c59-9a53-2f1f6d3c9e4a." }
        }
        try fields.check()
        guard let date, let millilitres, let stamp, let entryId else { throw APIError.invalid([:]) }
        return WaterWrite(
            id: entryId, date: date, millilitres: millilitres, write: DayWrite(stamp: stamp, isServerTimed: modifiedAt == nil))
    }
}
