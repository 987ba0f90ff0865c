import EventContracts
import Foundation

/// One meal event of a batch: a full-state copy (`meal.analyzed`, `meal.consumed`) or a `meal.deleted`.
enum MealChange: Sendable {
    case snapshot(MealSnapshot)
    case deletion(MealDeleted)

    /// The meal the event is about.
    var mealId: UUID {
        switch self {
        case .snapshot(let meal): meal.mealId
        case .deletion(let deletion): deletion.mealId
        }
    }

    /// The user the event belongs to.
    var userId: UUID {
        switch self {
        case .snapshot(let meal): meal.userId
        case .deletion(let deletion): deletion.userId
        }
    }
}
