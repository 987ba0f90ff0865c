import ServiceDefaults

/// The weigh-ins of a period with their smoothed trend (in the user's unit) and the trend's change over the period.
struct WeightTrendReport: Codable, Sendable, Equatable {
    struct Entry: Codable, Sendable, Equatable {
        var date: CalendarDate
        var weight: Double
        var trend: Double
    }

    var unit: String
    var entries: [Entry]
    /// The trend at the first and last weigh-in of the period.
    var startTrend: Double?
    var endTrend: Double?
    /// endTrend - startTrend.
    var change: Double?

    /// - Parameter weighIns: the weigh-ins of the period and of the weeks before it (they warm the smoothing up).
    init(weighIns: [BodyMetricsDay], period: ClosedRange<CalendarDate>, profile: TrendsProfile) {
        let smoothed = WeightTrendSmoother.smooth(weighIns.compactMap { day in day.weightKg.map { (date: day.date, kg: $0) } })
        let inPeriod = smoothed.filter { period.contains($0.date) }
        unit = profile.weightUnit
        entries = inPeriod.map { Entry(date: $0.date, weight: profile.displayWeight($0.kg), trend: profile.displayWeight($0.trendKg)) }
        startTrend = entries.first?.trend
        endTrend = entries.last?.trend
        if let first = inPeriod.first, let last = inPeriod.last {
            change = profile.displayWeight(last.trendKg - first.trendKg)
        } else {
            change = nil
        }
    }
}

/// A day's ketone level.
struct KetoneReading: Codable, Sendable, Equatable {
    var date: CalendarDate
    /// mmol/L.
    var level: Double
    /// Above 0.5 mmol/L.
    var inKetosis: Bool
}

