import Foundation
import Logging
import NIOCore
import PostgresSupport
import ServiceDefaults
import SyncContracts

/// MacroLog's optional photo clean-up: removes each user's meal photos stored more than their `deletePhotosAfterDays`
/// ago; the meals stay. Each removal is the same write as the user's own `DELETE /api/meals/:id/photo` (a new version,
/// the changes feed and the meal events, so devices and shared links learn the photo is gone), made at the server's
/// time. Replicas running it at once are harmless: a meal whose photo is already gone is left unchanged. The periodic
/// job calls `purge(now:logger:)`; tests call it directly.
struct MealPhotoRetention: Sendable {
    let client: PostgresPool
    let meals: MealRepository
    let profiles: ProfileRepository
    let store: PostgresMealStore
    /// Photos looked up per query.
    var batchSize = 100

    /// Removes every expired photo of every user who keeps photos a limited time; returns how many went.
    @discardableResult
    func purge(now: Date, logger: Logger) async throws -> Int {
        var removed = 0
        // The clean-up's writes are the server's own, made now: they apply as a live write does.
        let condition = WriteCondition.lastWriteWins(
            WriteStamp(now, tiebreak: ""), body: ByteBuffer(string: PhotoChange.remove.summary), serverTime: true)
        for (userId, days) in try await profiles.photoRetentions(client: client, logger: logger) {
            let cutoff = now.addingTimeInterval(-TimeInterval(days) * 86_400)
            while true {
                let expired = try await meals.mealsWithPhotosStored(
                    before: cutoff, userId: userId, limit: batchSize, client: client, logger: logger)
                for mealId in expired {
                    _ = try await store.changePhoto(.remove, of: mealId, userId: userId, condition: condition, logger: logger)
                }
                removed += expired.count
                if expired.count < batchSize { break }
            }
        }
        if removed > 0 { logger.info("meal photos past the users' deletePhotosAfterDays removed", metadata: ["photos": "\(removed)"]) }
        return removed
    }
}
