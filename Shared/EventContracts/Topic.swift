/// Every Kafka topic of the platform. Message key is always the user id, so one user's events stay ordered.
public enum Topic: String, CaseIterable, Sendable, Codable {
    case mealAnalyzed = "meal.analyzed"
    case mealConsumed = "meal.consumed"
    case mealDeleted = "meal.deleted"
    case weightLogged = "weight.logged"
    case waterLogged = "water.logged"
    case userProfileUpdated = "user.profile_updated"
    case userDeleted = "user.deleted"
}
