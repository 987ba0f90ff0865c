import ServiceDefaults

/// What the estimator knows of the user (from `user.profile_updated`): goals and optional body data.
///
/// Goals decide the suggested target (see `CalorieTargetPlanner`); body data allow the formula fallback
/// (see `MifflinStJeorFormula`). Every field is optional.
struct ExpenditureProfile: Sendable, Equatable {
    var dailyCalorieGoal: Int?
    /// kcal per day, negative for a deficit, positive for a surplus.
    var calorieBalanceGoal: Int?
    var targetWeightKg: Double?
    var heightCm: Double?
    var birthDate: CalendarDate?
    /// female, male, other or unspecified.
    var sex: String?
    /// sedentary, light, moderate, active or very_active.
    var activityLevel: String?
}
