import Foundation
import SyncContracts

/// A meal the user saved to log again (a usual breakfast): its name, default meal type and item requests.
struct CustomMealRecord: Sendable, Equatable {
    var id: UUID
    var userId: UUID
    var name: String
    var mealType: MealType?
    var items: [ItemRequest]
    var version: Int
    var createdAt: Date
    var updatedAt: Date
    /// The stamp of the last write, for last-write-wins.
    var modified: WriteStamp
    /// Normalised by `MealTags`; a meal logged from it carries them.
    var tags: [String] = []
}
