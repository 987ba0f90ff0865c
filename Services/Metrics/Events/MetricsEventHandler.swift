import BackendKit
import EventContracts
import Foundation
import Logging
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// Applies the events the metrics service consumes: `user.profile_updated` (the zone that decides the
/// user's "today", the preferred weight unit and `historyRetentionDays`) and `user.deleted` (every day and water entry of the user goes, with their sync clock, tombstones and conflicts).
struct MetricsEventHandler: EventHandler {
    let profiles: MetricsProfileRepository
    let days: DailyMetricsRepository
    let water: WaterEntryRepository

    static let topics: [Topic] = [.userProfileUpdated, .userDeleted]

    func handle(_ event: ReceivedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        switch event.header.type {
        case Topic.userProfileUpdated.rawValue:
            try await profiles.save(try event.payload(UserProfileUpdated.self), on: connection, logger: logger)
        case Topic.userDeleted.rawValue:
            let userId = try event.payload(UserDeleted.self).userId
            try await days.deleteAll(userId: userId, on: connection, logger: logger)
            try await water.deleteAll(userId: userId, on: connection, logger: logger)
            try await profiles.delete(userId: userId, on: connection, logger: logger)
            try await SyncClock.forget(userId, on: connection, logger: logger)
            logger.info("user purged", metadata: ["user_id": .string(userId.lowercasedString)])
        default:
            throw EventRejected("the metrics service does not consume \(event.header.type)")
        }
    }
}
