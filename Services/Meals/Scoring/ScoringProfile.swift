import EventContracts

/// The caller's diet and goals, as last received from `user.profile_updated` (defaults: balanced, no goals).
struct ScoringProfile: Sendable, Equatable {
    var diet: DietPreference
    /// Percent of energy per macro; only meaningful for the `custom` diet.
    var customMacros: MacroSplit?
    var dailyCalorieGoal: Int?
    var proteinGoalGrams: Int?
    var carbsGoalGrams: Int?
    var fatGoalGrams: Int?
    /// Negative for a deficit, positive for a surplus, in kcal per day.
    var calorieBalanceGoal: Int?

    init(
        diet: DietPreference = .balanced, customMacros: MacroSplit? = nil, dailyCalorieGoal: Int? = nil,
        proteinGoalGrams: Int? = nil, carbsGoalGrams: Int? = nil, fatGoalGrams: Int? = nil, calorieBalanceGoal: Int? = nil
    ) {
        self.diet = diet
        self.customMacros = customMacros
        self.dailyCalorieGoal = dailyCalorieGoal
        self.proteinGoalGrams = proteinGoalGrams
        self.carbsGoalGrams = carbsGoalGrams
        self.fatGoalGrams = fatGoalGrams
        self.calorieBalanceGoal = calorieBalanceGoal
    }

    /// The scoring view of a profile event; a diet string this service does not know scores as balanced.
    init(_ event: UserProfileUpdated) {
        self.init(
            diet: DietPreference(rawValue: event.dietPreference) ?? .balanced, customMacros: event.customMacros,
            dailyCalorieGoal: event.dailyCalorieGoal, proteinGoalGrams: event.proteinGoalGrams,
            carbsGoalGrams: event.carbsGoalGrams, fatGoalGrams: event.fatGoalGrams,
            calorieBalanceGoal: event.calorieBalanceGoal)
    }

    /// The profile of a user who has not said anything yet: balanced diet, no goals.
    static let standard = ScoringProfile()
}
