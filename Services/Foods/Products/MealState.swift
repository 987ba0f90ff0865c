import Foundation

/// The newest state of a meal as the meal events told foods (`meal_states`): whose it is, its version, whether it is
/// consumed now, and whether it was deleted for good.
struct MealState: Sendable, Equatable {
    var userId: UUID
    var version: Int
    var consumed: Bool
    var deleted: Bool

    /// Whether this copy replaces `stored`: the first copy, or one of the same or a newer version, unless the meal was
    /// deleted (final). A redelivered or overtaken older copy changes nothing. (An unconsume and the `meal.analyzed`
    /// after it share a version, and agree.)
    func replaces(_ stored: MealState?) -> Bool {
        guard let stored else { return true }
        return !stored.deleted && version >= stored.version
    }

    /// How the owner's count of consumed meals moves when this copy replaces `stored`: +1, 0 or -1.
    func loggedMealsChange(from stored: MealState?) -> Int {
        (consumed ? 1 : 0) - ((stored?.consumed ?? false) ? 1 : 0)
    }
}
