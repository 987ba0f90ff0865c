import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Applies the events the foods service consumes: `user.deleted`. The user's products stay (they are everyone's
/// now, as `community` products) without their author, their edits without their editor and their reports without
/// their reporter; each product that loses its author is published again (`food.product_changed`, next version).
struct FoodsEventHandler: EventHandler {
    static let topics: [Topic] = [.userDeleted]

    let products: PostgresProductStore
    let now: @Sendable () -> Date

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.userDeleted.rawValue:
            let userId = try event.payload(UserDeleted.self).userId
            let released = try await products.forgetUser(userId, now: now(), on: connection, logger: logger)
            logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString), "products_kept": "\(released)"])
        default:
            throw EventRejected("the foods service does not consume \(event.header.type)")
        }
    }
}
