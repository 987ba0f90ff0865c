import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Applies the events the sharing service consumes: meal copies (`meal.analyzed`, `meal.consumed`), deletions
/// (`meal.deleted` with reason `deleted`; `unconsumed` changes nothing here because the `meal.analyzed` sent
/// with it carries the new state), display names (`user.profile_updated`) and purges (`user.deleted`).
struct SharingEventHandler: EventHandler {
    let meals: MealSnapshotRepository
    let names: DisplayNameRepository
    let links: ShareLinkRepository
    /// Share requests waiting for a meal's first event; woken once the event's transaction commits.
    let arrivals: MealArrivals

    static let topics: [Topic] = [.mealAnalyzed, .mealConsumed, .mealDeleted, .userProfileUpdated, .userDeleted]

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.mealAnalyzed.rawValue:
            let meal = try event.payload(MealAnalyzed.self).meal
            if try await !DeletedUsers.contains(meal.userId, on: connection, logger: logger) {
                try await meals.apply(meal, on: connection, logger: logger)
            }
        case Topic.mealConsumed.rawValue:
            let meal = try event.payload(MealConsumed.self).meal
            if try await !DeletedUsers.contains(meal.userId, on: connection, logger: logger) {
                try await meals.apply(meal, on: connection, logger: logger)
            }
        case Topic.mealDeleted.rawValue:
            let deletion = try event.payload(MealDeleted.self)
            switch deletion.reason {
            case "deleted":
                if try await !DeletedUsers.contains(deletion.userId, on: connection, logger: logger) {
                    try await meals.delete(
                        mealId: deletion.mealId, userId: deletion.userId, version: deletion.version, on: connection, logger: logger)
                }
            case "unconsumed":
                break
            default:
                throw EventRejected("meal.deleted has an unknown reason")
            }
        case Topic.userProfileUpdated.rawValue:
            let profile = try event.payload(UserProfileUpdated.self)
            if try await !DeletedUsers.contains(profile.userId, on: connection, logger: logger) {
                try await names.save(profile, on: connection, logger: logger)
            }
        case Topic.userDeleted.rawValue:
            try await purge(try event.payload(UserDeleted.self), on: connection, logger: logger)
        default:
            throw EventRejected("the sharing service does not consume \(event.header.type)")
        }
    }

    /// Wakes the share requests waiting for the meals these events stored or deleted.
    func committed(_ events: [ReceivedEvent]) {
        arrivals.arrived(
            events.compactMap { event in
                switch event.header.type {
                case Topic.mealAnalyzed.rawValue: try? event.payload(MealAnalyzed.self).meal.mealId
                case Topic.mealConsumed.rawValue: try? event.payload(MealConsumed.self).meal.mealId
                case Topic.mealDeleted.rawValue: try? event.payload(MealDeleted.self).mealId
                default: nil
                }
            })
    }

    /// Every link, meal copy, photo and name of the user goes; later events of the user are ignored.
    private func purge(_ deletion: UserDeleted, on connection: PostgresConnection, logger: Logger) async throws {
        let userId = deletion.userId
        try await links.deleteAll(userId: userId, on: connection, logger: logger)
        try await meals.deleteAll(userId: userId, on: connection, logger: logger)
        try await names.delete(userId: userId, on: connection, logger: logger)
        try await DeletedUsers.remember(userId, deletedAt: deletion.deletedAt, on: connection, logger: logger)
        logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString)])
    }
}
