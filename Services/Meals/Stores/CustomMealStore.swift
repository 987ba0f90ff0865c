import BackendKit
import Foundation
import Logging
import SyncContracts

/// The caller's custom meals (saved meals to log again) as the routes read and write them (`PostgresCustomMealStore`
/// in the service, an in-memory one in router tests); always scoped to the owner.
protocol CustomMealStore: Sendable {
    /// The caller's custom meal.
    func find(_ id: UUID, userId: UUID, logger: Logger) async throws -> CustomMealRecord?

    /// The caller's custom meals by name, then id, after `after` (the last of the previous page): up to `limit + 1`.
    func list(userId: UUID, after: (name: String, id: UUID)?, limit: Int, logger: Logger) async throws -> [CustomMealRecord]

    /// Stores a new custom meal.
    func create(_ meal: CustomMealRecord, logger: Logger) async throws

    /// Stores a new custom meal under the id the client chose, unless that id is taken: then nothing is written and the
    /// answer is the stored custom meal, or the tombstone of the deleted one, as `MealStore.createIfAbsent` does.
    func createIfAbsent(_ meal: CustomMealRecord, logger: Logger) async throws -> CreateOutcome<CustomMealRecord>

    /// Changes the caller's custom meal with `change`, settled by `condition` as meals are (`MealStore.update`); 404 when
    /// it is neither theirs nor deleted.
    func replace(
        _ id: UUID, userId: UUID, condition: WriteCondition, logger: Logger, _ change: @Sendable (inout CustomMealRecord) -> Void
    ) async throws -> WriteOutcome<CustomMealRecord>

    /// Deletes the caller's custom meal, leaving a tombstone; deleting one already deleted changes nothing; 404 when
    /// it was never theirs.
    func delete(_ id: UUID, userId: UUID, logger: Logger) async throws
}

extension CustomMealRecord {
    /// The entity type of custom meals in the changes feed, tombstones and conflicts.
    static let entityType = "custom_meal"
    static let notFound = "No such custom meal."
}
