import Hummingbird
import SyncContracts

/// The answer of a weight, ketone or water write: the route's entry, or, when last-write-wins kept the stored day, the
/// stored state (the route's entry when the day has that measurement, else the whole day, or its tombstone when the
/// day is emptied) with a top-level `conflict` (`stale_write_ignored` or `deletion_preserved`).
struct MetricsWriteAnswer: ResponseEncodable {
    /// The shape of the state answered.
    enum State: Sendable {
        case weight(WeightEntryBody)
        case ketones(KetoneEntryBody)
        case day(DailyMetricsBody)
        case tombstone(MetricsDayTombstoneBody)
        case water(WaterEntryBody)
        case waterTombstone(WaterTombstoneBody)
    }

    var state: State
    var conflict: SyncConflictResolution?

    private enum ConflictKey: String, CodingKey { case conflict }

    func encode(to encoder: any Encoder) throws {
        switch state {
        case .weight(let body): try body.encode(to: encoder)
        case .ketones(let body): try body.encode(to: encoder)
        case .day(let body): try body.encode(to: encoder)
        case .tombstone(let body): try body.encode(to: encoder)
        case .water(let body): try body.encode(to: encoder)
        case .waterTombstone(let body): try body.encode(to: encoder)
        }
        if let conflict {
            var container = encoder.container(keyedBy: ConflictKey.self)
            try container.encode(conflict, forKey: .conflict)
        }
    }
}
