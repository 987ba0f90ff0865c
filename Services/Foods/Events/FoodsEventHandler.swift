import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Applies the events the foods service consumes. The meal events say which consumed meals name which products (so
/// search ranks by how often a product was logged, and a product's `confirmations` count who logged it) and how many
/// meals each account has logged; with `user.profile_updated`, which registration publishes first, they say when foods
/// first saw an account (`known_accounts`): together, whether it is established (`EstablishedAccountRule`). A meal's
/// older copy, redelivered or overtaken, changes nothing (`MealState`). `user.deleted`: the user's products stay
/// (they are everyone's now, as `community` products) without their author, their edits without their editor and their
/// reports without their reporter; each product that loses its author is published again (`food.product_changed`,
/// next version); what foods knew of the account and its meals is dropped.
struct FoodsEventHandler: EventHandler {
    static let topics: [Topic] = [.mealAnalyzed, .mealConsumed, .mealDeleted, .userProfileUpdated, .userDeleted]

    let products: PostgresProductStore
    /// Forgotten when a deleted user's products lose their author.
    let answers: BarcodeAnswerCache
    let now: @Sendable () -> Date
    let accounts = KnownAccountRepository()

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.mealConsumed.rawValue:
            try await record(try event.payload(MealConsumed.self).meal, at: event.header.time, on: connection, logger: logger)
        case Topic.mealAnalyzed.rawValue:
            // A meal analysed but not (or no longer) consumed was not eaten: it names no product as logged.
            try await record(try event.payload(MealAnalyzed.self).meal, at: event.header.time, on: connection, logger: logger)
        case Topic.mealDeleted.rawValue:
            let deleted = try event.payload(MealDeleted.self)
            let state = MealState(userId: deleted.userId, version: deleted.version, consumed: false, deleted: deleted.reason == "deleted")
            try await apply(state, of: deleted.mealId, naming: [], at: event.header.time, on: connection, logger: logger)
        case Topic.userProfileUpdated.rawValue:
            let profile = try event.payload(UserProfileUpdated.self)
            try await accounts.noteSeen(profile.userId, at: event.header.time, on: connection, logger: logger)
        case Topic.userDeleted.rawValue:
            let userId = try event.payload(UserDeleted.self).userId
            let released = try await products.forgetUser(userId, now: now(), on: connection, logger: logger)
            try await products.repository.forgetUses(ofUser: userId, on: connection, logger: logger)
            try await accounts.forget(userId, on: connection, logger: logger)
            if released > 0 { answers.forgetAll() }
            logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString), "products_kept": "\(released)"])
        default:
            throw EventRejected("the foods service does not consume \(event.header.type)")
        }
    }

    private func record(_ meal: MealSnapshot, at time: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let state = MealState(userId: meal.userId, version: meal.version, consumed: meal.isConsumed, deleted: false)
        let named = meal.isConsumed ? Set(meal.items.compactMap(\.productId)) : []
        try await apply(state, of: meal.mealId, naming: named, at: time, on: connection, logger: logger)
    }

    /// Notes the owner as seen at `time`; then, unless the stored state of the meal is newer (or deleted), makes `state`
    /// the meal's, moves the owner's count of logged meals and makes `named` the products the meal names.
    private func apply(
        _ state: MealState, of mealId: UUID, naming named: Set<UUID>, at time: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await accounts.noteSeen(state.userId, at: time, on: connection, logger: logger)
        let stored = try await accounts.mealState(mealId, on: connection, logger: logger)
        guard state.replaces(stored) else { return }
        try await accounts.saveMealState(
            state, of: mealId, loggedMealsChange: state.loggedMealsChange(from: stored), on: connection, logger: logger)
        try await products.repository.setUses(of: mealId, userId: state.userId, productIds: named, on: connection, logger: logger)
    }
}
