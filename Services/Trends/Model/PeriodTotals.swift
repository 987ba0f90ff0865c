/// Counts and sums over a span of days: every meal not deleted counts as analyzed; nutrients are summed
/// over consumed meals only.
struct PeriodTotals: Sendable, Equatable {
    var mealsConsumed: Int
    var mealsScanned: Int
    /// Days with at least one consumed meal.
    var daysLogged: Int
    var calories: Double
    var proteinGrams: Double
    var carbsGrams: Double
    var fatGrams: Double
    var fiberGrams: Double

    static let zero = PeriodTotals(
        mealsConsumed: 0, mealsScanned: 0, daysLogged: 0, calories: 0, proteinGrams: 0, carbsGrams: 0, fatGrams: 0, fiberGrams: 0)

    var mealsAnalyzed: Int { mealsConsumed + mealsScanned }

    init(
        mealsConsumed: Int, mealsScanned: Int, daysLogged: Int, calories: Double, proteinGrams: Double, carbsGrams: Double,
        fatGrams: Double, fiberGrams: Double
    ) {
        self.mealsConsumed = mealsConsumed
        self.mealsScanned = mealsScanned
        self.daysLogged = daysLogged
        self.calories = calories
        self.proteinGrams = proteinGrams
        self.carbsGrams = carbsGrams
        self.fatGrams = fatGrams
        self.fiberGrams = fiberGrams
    }

    /// The sums of `days`.
    init(_ days: [DaySummary]) {
        self = days.reduce(.zero) { totals, day in
            PeriodTotals(
                mealsConsumed: totals.mealsConsumed + day.consumedCount, mealsScanned: totals.mealsScanned + day.scannedCount,
                daysLogged: totals.daysLogged + (day.isLogged ? 1 : 0), calories: totals.calories + day.calories,
                proteinGrams: totals.proteinGrams + day.proteinGrams, carbsGrams: totals.carbsGrams + day.carbsGrams,
                fatGrams: totals.fatGrams + day.fatGrams, fiberGrams: totals.fiberGrams + day.fiberGrams)
        }
    }
}
