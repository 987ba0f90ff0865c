/// Every Kafka topic of the platform. The message key is the user id, so one user's events stay ordered, except on
/// `food.product_changed`, which is about a product shared by every user and is keyed by the product id.
public enum Topic: String, CaseIterable, Sendable, Codable {
    case mealAnalyzed = "meal.analyzed"
    case mealConsumed = "meal.consumed"
    case mealDeleted = "meal.deleted"
    case weightLogged = "weight.logged"
    case waterLogged = "water.logged"
    case userProfileUpdated = "user.profile_updated"
    case userDeleted = "user.deleted"
    case foodProductChanged = "food.product_changed"
}
