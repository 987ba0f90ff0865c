import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import WireJSON

/// Projects every event the trends service consumes into its read models, inside the inbox transaction.
///
/// Redelivery is absorbed by the inbox (an event id is applied once); reordering by versions (each read
/// model keeps the newest copy); summaries are recomputed from the meals of the days a change touched.
/// Events of a user whose `user.deleted` was applied are ignored, so nothing of theirs comes back.
///
/// A batch's meal events are applied together (`MealChangePlan`: one statement for the full-state copies) and
/// each day they touch is recomputed once, in one statement; a `user.deleted` applies the meal events before it
/// first. Weights, water and profiles, other tables, are applied one by one in place.
struct TrendsEventHandler: EventHandler {
    let meals: MealProjection
    let summaries: DaySummaryProjection
    let bodyMetrics: BodyMetricsProjection
    let water: WaterProjection
    let profiles: ProfileProjection
    let versions: DataVersionProjection

    static let topics: [Topic] = [
        .mealAnalyzed, .mealConsumed, .mealDeleted, .weightLogged, .waterLogged, .userProfileUpdated, .userDeleted,
    ]

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

    /// Applies a batch with the end state of `handle` event by event: meal events collected and applied together up to
    /// each `user.deleted` (and at the end), everything else in place; an unreadable event rejects the whole batch.
    func handle(batch events: [ReceivedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        do {
            var pending: [MealChange] = []
            for event in events {
                switch event.header.type {
                case Topic.mealAnalyzed.rawValue: pending.append(.snapshot(try event.payload(MealAnalyzed.self).meal))
                case Topic.mealConsumed.rawValue: pending.append(.snapshot(try event.payload(MealConsumed.self).meal))
                case Topic.mealDeleted.rawValue: pending.append(.deletion(try event.payload(MealDeleted.self)))
                case Topic.userDeleted.rawValue:
                    try await apply(pending, on: connection, logger: logger)
                    pending = []
                    try await project(event, on: connection, logger: logger)
                default:
                    try await project(event, on: connection, logger: logger)
                }
            }
            try await apply(pending, on: connection, logger: logger)
            // Each user's ready reports are stale from this commit on: one bump per user of the batch.
            try await versions.bump(Set(events.compactMap { UUID(uuidString: $0.header.subject) }), on: connection, logger: logger)
        } catch let error as ProjectionError {
            throw EventRejected(error.description)
        }
    }

    /// Applies meal events of one batch, given in arrival order, skipping deleted users', then recomputes every day
    /// they changed once.
    private func apply(_ changes: [MealChange], on connection: PostgresConnection, logger: Logger) async throws {
        guard !changes.isEmpty else { return }
        let deleted = try await DeletedUsers.among(Set(changes.map(\.userId)), on: connection, logger: logger)
        let plan = MealChangePlan(changes.filter { !deleted.contains($0.userId) })
        var days = try await meals.apply(distinct: plan.newestSnapshots, on: connection, logger: logger)
        for change in plan.inOrder {
            let changed: Set<CalendarDate>
            switch change {
            case .snapshot(let meal): changed = try await meals.apply(meal, on: connection, logger: logger)
            case .deletion(let deletion): changed = try await meals.apply(deletion, on: connection, logger: logger)
            }
            days.formUnion(changed.map { UserDay(userId: change.userId, day: $0) })
        }
        try await summaries.recompute(days, on: connection, logger: logger)
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
        case Topic.waterLogged.rawValue:
            let day = try event.payload(WaterLogged.self)
            guard try await !DeletedUsers.contains(day.userId, on: connection, logger: logger) else { return }
            try await water.apply(day, on: connection, logger: logger)
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
        try await summaries.recompute(Set(days.map { UserDay(userId: userId, day: $0) }), on: connection, logger: logger)
    }

    /// Every read model of the user goes; the id is remembered so late events of theirs are ignored.
    private func purge(_ deletion: UserDeleted, on connection: PostgresConnection, logger: Logger) async throws {
        let userId = deletion.userId
        try await meals.deleteAll(userId: userId, on: connection, logger: logger)
        try await summaries.deleteAll(userId: userId, on: connection, logger: logger)
        try await bodyMetrics.deleteAll(userId: userId, on: connection, logger: logger)
        try await water.deleteAll(userId: userId, on: connection, logger: logger)
        try await profiles.deleteAll(userId: userId, on: connection, logger: logger)
        try await versions.deleteAll(userId: userId, on: connection, logger: logger)
        try await DeletedUsers.remember(userId, deletedAt: deletion.deletedAt, on: connection, logger: logger)
        logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString)])
    }
}
