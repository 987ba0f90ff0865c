import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// Projects every event the trends service consumes into its read models, inside the inbox transaction.
///
/// Redelivery is absorbed by the inbox (an event id is applied once); reordering by versions (each read
/// model keeps the newest copy); summaries are recomputed from the meals of the days a change touched.
/// Events of a user whose `user.deleted` was applied are ignored, so nothing of theirs comes back.
struct TrendsEventHandler: EventHandler {
    let meals: MealProjection
    let summaries: DaySummaryProjection
    let bodyMetrics: BodyMetricsProjection
    let profiles: ProfileProjection
    let versions: DataVersionProjection

    static let topics: [Topic] = [.mealAnalyzed, .mealConsumed, .mealDeleted, .weightLogged, .userProfileUpdated, .userDeleted]

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await project(event, on: connection, logger: logger)
            // The subject is the user id (the message key): their ready reports are stale from this commit on.
            if let userId = UUID(uuidString: event.header.subject) {
                try await versions.bump([userId], on: connection, logger: logger)
            }
        } catch let error as ProjectionError {
            throw EventRejected(error.description)
        }
    }

    private func project(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.mealAnalyzed.rawValue:
            try await project(try event.payload(MealAnalyzed.self).meal, on: connection, logger: logger)
        case Topic.mealConsumed.rawValue:
            try await project(try event.payload(MealConsumed.self).meal, on: connection, logger: logger)
        case Topic.mealDeleted.rawValue:
            let deletion = try event.payload(MealDeleted.self)
            guard try await !DeletedUsers.contains(deletion.userId, on: connection, logger: logger) else { return }
            let days = try await meals.apply(deletion, on: connection, logger: logger)
            try await recompute(days, of: deletion.userId, on: connection, logger: logger)
        case Topic.weightLogged.rawValue:
            let metrics = try event.payload(WeightLogged.self)
            guard try await !DeletedUsers.contains(metrics.userId, on: connection, logger: logger) else { return }
            try await bodyMetrics.apply(metrics, on: connection, logger: logger)
        case Topic.userProfileUpdated.rawValue:
            let profile = try event.payload(UserProfileUpdated.self)
            guard try await !DeletedUsers.contains(profile.userId, on: connection, logger: logger) else { return }
            try await profiles.apply(profile, on: connection, logger: logger)
        case Topic.userDeleted.rawValue:
            let deletion = try event.payload(UserDeleted.self)
            try await purge(deletion, on: connection, logger: logger)
        default:
            throw EventRejected("the trends service does not consume \(event.header.type)")
        }
    }

    private func project(_ meal: MealSnapshot, on connection: PostgresConnection, logger: Logger) async throws {
        guard try await !DeletedUsers.contains(meal.userId, on: connection, logger: logger) else { return }
        let days = try await meals.apply(meal, on: connection, logger: logger)
        try await recompute(days, of: meal.userId, on: connection, logger: logger)
    }

    private func recompute(_ days: Set<CalendarDate>, of userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        for day in days.sorted() { try await summaries.recompute(userId: userId, day: day, on: connection, logger: logger) }
    }

    /// Every read model of the user goes; the id is remembered so late events of theirs are ignored.
    private func purge(_ deletion: UserDeleted, on connection: PostgresConnection, logger: Logger) async throws {
        let userId = deletion.userId
        try await meals.deleteAll(userId: userId, on: connection, logger: logger)
        try await summaries.deleteAll(userId: userId, on: connection, logger: logger)
        try await bodyMetrics.deleteAll(userId: userId, on: connection, logger: logger)
        try await profiles.deleteAll(userId: userId, on: connection, logger: logger)
        try await versions.deleteAll(userId: userId, on: connection, logger: logger)
        try await DeletedUsers.remember(userId, deletedAt: deletion.deletedAt, on: connection, logger: logger)
        logger.info("user purged", metadata: ["user_id": .string(userId.uuidString)])
    }
}
