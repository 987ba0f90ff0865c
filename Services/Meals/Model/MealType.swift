/// When in the day a meal was eaten.
enum MealType: String, Codable, Sendable, CaseIterable {
    case breakfast, lunch, dinner, snack
}

/// How the user captured a meal (quick-capture kinds of the MacroLog app).
enum CaptureKind: String, Codable, Sendable, CaseIterable {
    case fullMeal = "full_meal"
    case snack
    case quickAdd = "quick_add"
}

/// How a meal came to be.
enum MealOrigin: String, Codable, Sendable {
    case photo, text, manual
    case customMeal = "custom_meal"
}
