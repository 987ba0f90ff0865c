/// Daily averages over the days on which something was consumed (days without a log would only say the
/// user did not log, not that they ate nothing), and the energy split of the macronutrients.
struct NutritionAverages: Codable, Sendable, Equatable {
    var calories: Double
    var proteinGrams: Double
    var carbsGrams: Double
    var fatGrams: Double
    var fiberGrams: Double

    /// nil when no day was logged.
    init?(_ totals: PeriodTotals) {
        guard totals.daysLogged > 0 else { return nil }
        let days = Double(totals.daysLogged)
        calories = Rounding.tenths(totals.calories / days)
        proteinGrams = Rounding.tenths(totals.proteinGrams / days)
        carbsGrams = Rounding.tenths(totals.carbsGrams / days)
        fatGrams = Rounding.tenths(totals.fatGrams / days)
        fiberGrams = Rounding.tenths(totals.fiberGrams / days)
    }
}

/// The share of macronutrient energy (4 kcal/g protein and carbs, 9 kcal/g fat) in percent, summing to 100.
struct MacroEnergySplit: Codable, Sendable, Equatable {
    var proteinPercent: Double
    var carbsPercent: Double
    var fatPercent: Double

    /// nil when no macronutrient was eaten.
    init?(_ totals: PeriodTotals) {
        let protein = totals.proteinGrams * 4, carbs = totals.carbsGrams * 4, fat = totals.fatGrams * 9
        let energy = protein + carbs + fat
        guard energy > 0 else { return nil }
        proteinPercent = Rounding.tenths(protein / energy * 100)
        carbsPercent = Rounding.tenths(carbs / energy * 100)
        fatPercent = Rounding.tenths(fat / energy * 100)
    }
}

/// How often the logged days met the calorie goal.
struct GoalAchievement: Codable, Sendable, Equatable {
    /// The goal in force on the last day of the range.
    var dailyCalorieGoal: Int?
    var daysLogged: Int
    /// Days met, each by the goal in force that day.
    var daysMet: Int
    /// daysMet / daysLogged; nil without a goal or without logged days.
    var achievementRate: Double?

    init(_ days: [DaySummary], goals: GoalHistory) {
        dailyCalorieGoal = days.last.flatMap { goals.dailyCalorieGoal(on: $0.date) }
        daysLogged = days.filter(\.isLogged).count
        daysMet = days.filter { GoalStatus($0, goal: goals.dailyCalorieGoal(on: $0.date)) == .met }.count
        let judged = days.contains { goals.dailyCalorieGoal(on: $0.date) != nil }
        achievementRate = judged && daysLogged > 0 ? (Double(daysMet) / Double(daysLogged) * 1000).rounded() / 1000 : nil
    }
}
