import EventContracts
import Foundation
import Messaging
import PostgresNIO
import PostgresSupport
import WireJSON

/// The events the auth service publishes, written to its outbox inside the caller's transaction.
enum AccountEvents {
    static let source = "auth"

    /// `user.profile_updated` with the whole profile.
    static func profileUpdated(_ profile: Profile, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let envelope = EventEnvelope(source: source, subject: profile.userId.lowercasedString, data: profile.event, time: now)
        try await Outbox.append(envelope, on: connection, logger: logger)
    }

    /// `user.deleted`: every service purges the user.
    static func userDeleted(_ userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let envelope = EventEnvelope(
            source: source, subject: userId.lowercasedString, data: UserDeleted(userId: userId, deletedAt: now), time: now)
        try await Outbox.append(envelope, on: connection, logger: logger)
    }
}
