import ServiceDefaults

// TEMPORARY placeholder until the expenditure branch lands (replaced by the helper's file).
enum WeightTrendSmoother {
    static func smooth(_ weighIns: [(date: CalendarDate, kg: Double)]) -> [(date: CalendarDate, kg: Double, trendKg: Double)] {
        weighIns.map { ($0.date, $0.kg, $0.kg) }
    }
}
