import Foundation
import ServiceDefaults
import SyncContracts

/// A weigh-in once read and checked: what `POST /api/metrics/weight` and the import both write.
struct WeighInValues: Sendable {
    var date: CalendarDate
    var kilograms: Double
    /// The unit the weight was given in (the user's preferred one when absent).
    var unit: WeightUnit
    var notes: String?
    var stamp: WriteStamp
    /// No `modifiedAt` was sent: the write is stamped on arrival.
    var isServerTimed: Bool
}

extension WeightRequest {
    /// The request's values for `profile` at `now`; `body` is the bytes it came in (the tiebreak of its stamp). 422
    /// naming every bad field.
    func values(profile: MetricsProfile, now: Date, body: some Sequence<UInt8>) throws -> WeighInValues {
        var fields = MetricsFieldReader(profile: profile, now: now)
        let date = fields.date(date)
        let unit = fields.unit(unit)
        let kilograms = fields.weight(weight, unit: unit)
        let notes = fields.notes(notes)
        let stamp = fields.stamp(modifiedAt, body: body)
        try fields.check()
        guard let date, let kilograms, let stamp else { throw APIError.invalid([:]) }
        return WeighInValues(date: date, kilograms: kilograms, unit: unit, notes: notes, stamp: stamp, isServerTimed: modifiedAt == nil)
    }
}
