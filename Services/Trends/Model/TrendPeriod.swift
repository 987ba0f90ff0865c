import ServiceDefaults

/// The periods of `GET /api/trends`: the last 7, 30 or 90 days, today included.
enum TrendPeriod: String, Codable, Sendable, CaseIterable {
    case week = "7d"
    case month = "30d"
    case quarter = "90d"

    var days: Int {
        switch self {
        case .week: 7
        case .month: 30
        case .quarter: 90
        }
    }

    func range(endingOn today: CalendarDate) -> ClosedRange<CalendarDate> { today.adding(days: 1 - days)...today }
}
