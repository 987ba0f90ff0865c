import Foundation
import Logging
import ServiceDefaults

/// What the sharing service asks the meals service, always on a meal owner's behalf (the meals service checks
/// ownership again): the meal's photo, when it is shared with it, and whether the meal exists at all, when a share
/// request has waited for the meal's event in vain. `MealsClient` in the service; router tests use a stand-in.
protocol MealsLookup: Sendable {
    /// The meal's photo; nil when the meals service has none for this caller. 503 when it cannot be reached.
    func photo(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> MealPhoto?

    /// Whether the meals service holds `mealId` for this caller (false: it never existed, was deleted, or is another
    /// user's). 503 when it cannot be reached.
    func holds(mealId: UUID, for caller: CallerIdentity, requestId: String, logger: Logger) async throws -> Bool
}
