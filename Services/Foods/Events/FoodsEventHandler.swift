import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Applies the events the foods service consumes: the meal events (which consumed meals name which products, so
/// search ranks by how often a product was logged) and `user.deleted`: the user's products stay (they are everyone's
/// now, as `community` products) without their author, their edits without their editor and their reports without
/// their reporter; each product that loses its author is published again (`food.product_changed`, next version).
struct FoodsEventHandler: EventHandler {
    static let topics: [Topic] = [.mealAnalyzed, .mealConsumed, .mealDeleted, .userDeleted]

    let products: PostgresProductStore
    /// Forgotten when a deleted user's products lose their author.
    let answers: BarcodeAnswerCache
    let now: @Sendable () -> Date

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.mealConsumed.rawValue:
            try await recordUses(of: try event.payload(MealConsumed.self).meal, on: connection, logger: logger)
        case Topic.mealAnalyzed.rawValue:
            // A meal analysed but not (or no longer) consumed was not eaten: it names no product as logged.
            try await recordUses(of: try event.payload(MealAnalyzed.self).meal, on: connection, logger: logger)
        case Topic.mealDeleted.rawValue:
            let deleted = try event.payload(MealDeleted.self)
            try await products.repository.setUses(of: deleted.mealId, userId: deleted.userId, productIds: [], on: connection, logger: logger)
        case Topic.userDeleted.rawValue:
            let userId = try event.payload(UserDeleted.self).userId
            let released = try await products.forgetUser(userId, now: now(), on: connection, logger: logger)
            try await products.repository.forgetUses(ofUser: userId, on: connection, logger: logger)
            if released > 0 { answers.forgetAll() }
            logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString), "products_kept": "\(released)"])
        default:
            throw EventRejected("the foods service does not consume \(event.header.type)")
        }
    }

    private func recordUses(of meal: MealSnapshot, on connection: PostgresConnection, logger: Logger) async throws {
        let named = meal.isConsumed ? Set(meal.items.compactMap(\.productId)) : []
        try await products.repository.setUses(of: meal.mealId, userId: meal.userId, productIds: named, on: connection, logger: logger)
    }
}
