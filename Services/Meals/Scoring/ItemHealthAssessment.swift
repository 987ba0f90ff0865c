/// An item's health score with a sentence on why and a supportive, specific suggestion.
struct ItemHealthAssessment: Sendable, Equatable {
    var health: HealthScore
    /// Names the food and its telling numbers ("Broccoli: whole or minimally processed, with 2.6 g fibre…").
    var reason: String
    var encouragement: String
}
