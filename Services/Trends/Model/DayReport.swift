import ServiceDefaults

/// One day as every dashboard route shows it: what was eaten, the scores, and the goal status.
struct DayReport: Codable, Sendable, Equatable {
    var date: CalendarDate
    var mealsConsumed: Int
    var mealsScanned: Int
    var calories: Double
    var proteinGrams: Double
    var carbsGrams: Double
    var fatGrams: Double
    var fiberGrams: Double
    /// Means over the day's consumed meals; nil when nothing was consumed.
    var dietScore: Double?
    var healthScore: Double?
    var healthRating: String?
    var goalStatus: GoalStatus
    /// Whether consumed calories were within 90-110% of the goal; nil without a goal or without meals.
    var goalMet: Bool?
    /// Goal minus consumed calories (negative when over); nil without a goal.
    var caloriesRemaining: Double?
    /// The day's water in millilitres (0 when none was logged).
    var waterMillilitres: Int
    /// The user's daily water goal; nil without one.
    var waterGoalMillilitres: Int?
    /// Whether the day's water reached the goal; nil without a goal.
    var waterGoalMet: Bool?

    /// `day` judged by the calorie goal in force that day and the current water goal of `goals`.
    init(_ day: DaySummary, goals: GoalHistory) {
        self.init(day, goal: goals.dailyCalorieGoal(on: day.date), waterGoal: goals.dailyWaterGoalMillilitres)
    }

    init(_ day: DaySummary, goal: Int?, waterGoal: Int? = nil) {
        date = day.date
        mealsConsumed = day.consumedCount
        mealsScanned = day.scannedCount
        calories = Rounding.tenths(day.calories)
        proteinGrams = Rounding.tenths(day.proteinGrams)
        carbsGrams = Rounding.tenths(day.carbsGrams)
        fatGrams = Rounding.tenths(day.fatGrams)
        fiberGrams = Rounding.tenths(day.fiberGrams)
        dietScore = day.dietScore.map(Rounding.tenths)
        healthScore = day.healthScore.map(Rounding.tenths)
        healthRating = day.healthRating?.rawValue
        goalStatus = GoalStatus(day, goal: goal)
        goalMet = goalStatus.isMet
        caloriesRemaining = goal.map { Rounding.tenths(Double($0) - day.calories) }
        waterMillilitres = day.waterMillilitres
        waterGoalMillilitres = waterGoal
        waterGoalMet = waterGoal.map { day.waterMillilitres >= $0 }
    }
}

/// Rounding of figures shown to people.
enum Rounding {
    static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
