import BackendKit
import Foundation
import Logging
import SyncContracts

/// The meals area of offline-first sync as its routes read it: what changed after a change number and the conflicts
/// resolved (`PostgresMealsChangeFeed` in the service, the in-memory store in router tests).
protocol MealsChangeFeed: Sendable {
    /// The caller's meals, custom meals and tombstones changed after change `since`, each kind by change number and at
    /// most `limit` of each, read at one moment so a change committed between the reads cannot be skipped; nil when
    /// `since` is older than the deletions still kept (the client must start again from 0).
    func changes(userId: UUID, since: Int64, limit: Int, logger: Logger) async throws -> MealsChanges?

    /// A page of the conflicts resolved on the caller's meals and custom meals, newest first, after `cursor`.
    func conflicts(userId: UUID, limit: Int, cursor: String?, logger: Logger) async throws -> SyncConflictPage<JSONValue>
}

/// What changed for a user after a change number.
struct MealsChanges: Sendable {
    var meals: [(seq: Int64, record: MealRecord)] = []
    var customMeals: [(seq: Int64, record: CustomMealRecord)] = []
    var tombstones: [SyncTombstone] = []
}
