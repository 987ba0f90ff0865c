import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Applies the events the meals service consumes: `user.profile_updated` (the diet, goals and time zone used
/// for scoring), `user.deleted` (every meal, photo, custom meal, the vision key, vision usage and budget, and the
/// profile of the user go) and `food.product_changed` (the copy of a packaged product that meal items name).
struct MealsEventHandler: EventHandler {
    let profiles: ProfileRepository
    let meals: MealRepository
    let customMeals: CustomMealRepository
    let visionKeys: VisionKeyRepository
    /// Meal writes waiting for their user's first profile; woken once the profile's transaction commits.
    let arrivals: ProfileArrivals
    var visionUsage = VisionUsageRepository()
    var products = ProductCopyRepository()

    static let topics: [Topic] = [.userProfileUpdated, .userDeleted, .foodProductChanged]

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.userProfileUpdated.rawValue:
            let profile = try event.payload(UserProfileUpdated.self)
            try await profiles.save(profile, on: connection, logger: logger)
        case Topic.userDeleted.rawValue:
            let userId = try event.payload(UserDeleted.self).userId
            try await meals.deleteAll(userId: userId, on: connection, logger: logger)
            try await customMeals.deleteAll(userId: userId, on: connection, logger: logger)
            try await visionKeys.deleteAll(userId: userId, on: connection, logger: logger)
            try await visionUsage.deleteAll(userId: userId, on: connection, logger: logger)
            try await profiles.delete(userId: userId, on: connection, logger: logger)
            try await SyncClock.forget(userId, on: connection, logger: logger)
            logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString)])
        case Topic.foodProductChanged.rawValue:
            try await products.save(try event.payload(FoodProductChanged.self), on: connection, logger: logger)
        default:
            throw EventRejected("the meals service does not consume \(event.header.type)")
        }
    }

    /// Wakes the meal writes waiting for the profiles these events stored.
    func committed(_ events: [ReceivedEvent]) {
        arrivals.arrived(
            events.compactMap { event in
                event.header.type == Topic.userProfileUpdated.rawValue ? try? event.payload(UserProfileUpdated.self).userId : nil
            })
    }
}
