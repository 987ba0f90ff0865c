/// The data of a live change of the metrics feed: a day as `GET /api/metrics/daily` answers it (`body_metrics_day`),
/// or a water entry as `POST /api/metrics/water` answers it (`water_entry`).
enum MetricsChangeData: Codable, Sendable, Equatable {
    case day(DailyMetricsBody)
    case water(WaterEntryBody)

    init(from decoder: any Decoder) throws {
        if let water = try? WaterEntryBody(from: decoder) {
            self = .water(water)
        } else {
            self = .day(try DailyMetricsBody(from: decoder))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .day(let body): try body.encode(to: encoder)
        case .water(let body): try body.encode(to: encoder)
        }
    }
}
