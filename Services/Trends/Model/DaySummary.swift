import EventContracts
import ServiceDefaults

/// One user's day as the read model holds it: sums over consumed meals, counts of consumed and scanned meals,
/// the mean scores of the consumed ones, and the water drunk.
struct DaySummary: Sendable, Equatable {
    var date: CalendarDate
    var consumedCount: Int
    var scannedCount: Int
    var calories: Double
    var proteinGrams: Double
    var carbsGrams: Double
    var fatGrams: Double
    var fiberGrams: Double
    var dietScore: Double?
    var healthScore: Double?
    /// The day's water, from `water.logged` (0 without entries).
    var waterMillilitres = 0

    /// A day without meals.
    static func empty(_ date: CalendarDate) -> DaySummary {
        DaySummary(
            date: date, consumedCount: 0, scannedCount: 0, calories: 0, proteinGrams: 0, carbsGrams: 0, fatGrams: 0, fiberGrams: 0,
            dietScore: nil, healthScore: nil)
    }

    /// A day counts as logged (for averages, streaks and goal rates) when at least one meal was consumed.
    var isLogged: Bool { consumedCount > 0 }

    var healthRating: HealthRating? { healthScore.map { HealthRating(score: Int($0.rounded())) } }

    /// Every day from `range.lowerBound` to `range.upperBound`, with the stored summaries and empty days between.
    static func filled(_ summaries: [DaySummary], over range: ClosedRange<CalendarDate>) -> [DaySummary] {
        let byDate = Dictionary(summaries.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
        return (range.lowerBound.ordinal...range.upperBound.ordinal).map { ordinal in
            let date = CalendarDate(ordinal: ordinal)
            return byDate[date] ?? .empty(date)
        }
    }
}
