import EventContracts
import Foundation

/// How the meal events of a batch are applied with the end state of applying them one by one.
///
/// Of full-state copies alone, only the first copy of the highest version can leave its mark: each copy overwrites
/// every column a lower one set, and a second copy of the same version changes nothing. So a meal whose events in
/// the batch are all copies of one user is reduced to that copy, and all of them are applied in one statement.
/// A meal with a `meal.deleted` among them (an unconsume keeps content only when it follows the version just before,
/// so order matters), or with copies claiming different users (the first one owns the meal), keeps its events,
/// applied one by one in arrival order.
struct MealChangePlan: Sendable {
    /// Per reduced meal, the copy that decides it, in order of the meals' first events.
    private(set) var newestSnapshots: [MealSnapshot] = []
    /// The events of the other meals, in arrival order.
    private(set) var inOrder: [MealChange] = []

    /// Plans `changes`, given in arrival order.
    init(_ changes: [MealChange]) {
        var owners: [UUID: UUID] = [:]
        var keptInOrder = Set<UUID>()
        for change in changes {
            if case .deletion = change { keptInOrder.insert(change.mealId) }
            if let owner = owners.updateValue(change.userId, forKey: change.mealId), owner != change.userId {
                keptInOrder.insert(change.mealId)
            }
        }
        var newest: [UUID: MealSnapshot] = [:]
        var firstSeen: [UUID] = []
        for change in changes {
            guard case .snapshot(let meal) = change, !keptInOrder.contains(meal.mealId) else {
                inOrder.append(change)
                continue
            }
            if let kept = newest[meal.mealId] {
                if meal.version > kept.version { newest[meal.mealId] = meal }
            } else {
                newest[meal.mealId] = meal
                firstSeen.append(meal.mealId)
            }
        }
        newestSnapshots = firstSeen.compactMap { newest[$0] }
    }
}
