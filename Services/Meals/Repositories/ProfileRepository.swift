import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import SyncContracts
import WireJSON

/// The latest profile of each user, written by the `user.profile_updated` handler and read by every scoring request.
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct ProfileRepository: Sendable {
    /// Stores `event` unless a newer version is already stored (events may arrive out of order).
    func save(_ event: UserProfileUpdated, on connection: PostgresConnection, logger: Logger) async throws {
        let json = String(decoding: try WireJSONEncoder().encode(event), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO user_profiles (user_id, profile, version) VALUES (\(event.userId), \(json)::jsonb, \(event.version))
            ON CONFLICT (user_id) DO UPDATE SET profile = EXCLUDED.profile, version = EXCLUDED.version
            WHERE user_profiles.version < EXCLUDED.version
            """, logger: logger)
    }

    /// The caller's profile; nil when none has arrived (`CallerProfiles` then waits for it, or uses the standard one).
    func profile(of userId: UUID, client: PostgresPool, logger: Logger) async throws -> CallerProfile? {
        let rows = try await client.query("SELECT profile::text FROM user_profiles WHERE user_id = \(userId)", logger: logger)
        for try await json in rows.decode(String.self) {
            return CallerProfile(event: try JSONDecoder().decode(UserProfileUpdated.self, from: Data(json.utf8)))
        }
        return nil
    }

    /// The users who keep a limited history (`historyRetentionDays` in their latest profile), with their retention
    /// (in their zone, UTC when unknown).
    func retentions(client: PostgresPool, logger: Logger) async throws -> [(userId: UUID, retention: HistoryRetention)] {
        let rows = try await client.query(
            """
            SELECT user_id, profile->>'timeZone', (profile->>'historyRetentionDays')::int FROM user_profiles
            WHERE profile->>'historyRetentionDays' IS NOT NULL
            """, logger: logger)
        var found: [(userId: UUID, retention: HistoryRetention)] = []
        for try await (userId, zone, days) in rows.decode((UUID, String?, Int).self) {
            let timeZone = zone.flatMap(TimeZone.init(identifier:)) ?? CallerProfile.standard.timeZone
            found.append((userId, HistoryRetention(days: days, timeZone: timeZone)))
        }
        return found
    }

    /// The users who keep meal photos a limited time (`deletePhotosAfterDays` in their latest profile), with that time.
    func photoRetentions(client: PostgresPool, logger: Logger) async throws -> [(userId: UUID, days: Int)] {
        let rows = try await client.query(
            """
            SELECT user_id, (profile->>'deletePhotosAfterDays')::int FROM user_profiles
            WHERE profile->>'deletePhotosAfterDays' IS NOT NULL
            """, logger: logger)
        var found: [(userId: UUID, days: Int)] = []
        for try await (userId, days) in rows.decode((UUID, Int).self) { found.append((userId, days)) }
        return found
    }

    /// Forgets the user's profile.
    func delete(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM user_profiles WHERE user_id = \(userId)", logger: logger)
    }
}
