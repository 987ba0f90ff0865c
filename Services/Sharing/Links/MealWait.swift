import BackendKit
import Foundation
import ServiceDefaults

/// How a share request waits for a meal the sharing service has not heard of yet (the owner logged it a moment ago
/// and its event is on its way): woken as soon as this replica's consumer commits the meal, and re-reading the
/// database every `recheck` for a meal another replica's consumer stored, until `limit` has passed.
struct MealWait: Sendable {
    let arrivals: MealArrivals
    /// The longest a request waits (`SHARING_MEAL_WAIT_SECONDS`).
    let limit: Duration
    /// How often a waiting request reads the database again (`SHARING_MEAL_WAIT_RECHECK_SECONDS`).
    let recheck: Duration

    /// The meal as `lookup` finds it, after waiting for its first event when it is unknown; nil when it is still unknown
    /// after `limit`, or once the server has begun to stop. 503 `busy` (with `Retry-After`) when too many requests, or
    /// too many of `userId`'s, wait already (`MealArrivals`); a cancelled request stops waiting at once.
    func meal(_ mealId: UUID, of userId: UUID, lookup: () async throws -> StoredMeal?) async throws -> StoredMeal? {
        switch try await arrivals.wait(for: mealId, of: userId, limit: limit, recheck: recheck, lookup: lookup) {
        case .found(let meal): return meal
        case .notYet: return nil
        case .full: throw Self.busy
        }
    }

    static let busy = APIError(
        .serviceUnavailable, code: "busy", message: "Too many share requests are waiting for their meals; try again in a moment.",
        headers: [.retryAfter: "1"])
}
