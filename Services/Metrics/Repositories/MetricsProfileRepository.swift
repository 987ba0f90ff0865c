import EventContracts
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import SyncContracts

/// The unit and zone of each user, written by the `user.profile_updated` handler.
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct MetricsProfileRepository: Sendable {
    /// Stores the unit, zone and history retention of `event` unless a newer version is already stored.
    func save(_ event: UserProfileUpdated, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO user_profiles (user_id, weight_unit, time_zone, history_retention_days, version)
            VALUES (\(event.userId), \(event.weightUnit), \(event.timeZone), \(event.historyRetentionDays), \(event.version))
            ON CONFLICT (user_id) DO UPDATE SET weight_unit = EXCLUDED.weight_unit, time_zone = EXCLUDED.time_zone,
                history_retention_days = EXCLUDED.history_retention_days, version = EXCLUDED.version
            WHERE user_profiles.version < EXCLUDED.version
            """, logger: logger)
    }

    /// The users who keep a limited history, with their retention (in their zone, UTC when unknown).
    func retentions(on connection: PostgresConnection, logger: Logger) async throws -> [(userId: UUID, retention: HistoryRetention)] {
        let rows = try await connection.query(
            "SELECT user_id, time_zone, history_retention_days FROM user_profiles WHERE history_retention_days IS NOT NULL",
            logger: logger)
        var found: [(userId: UUID, retention: HistoryRetention)] = []
        for try await (userId, zone, days) in rows.decode((UUID, String, Int).self) {
            found.append((userId, HistoryRetention(days: days, timeZone: TimeZone(identifier: zone) ?? MetricsProfile.unknown.timeZone)))
        }
        return found
    }

    /// The user's profile; `.unknown` before the first event (an unknown unit or zone falls back to kg or UTC).
    func profile(of userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> MetricsProfile {
        let rows = try await connection.query(
            "SELECT weight_unit, time_zone, history_retention_days FROM user_profiles WHERE user_id = \(userId)", logger: logger)
        for try await (unit, zone, retentionDays) in rows.decode((String, String, Int?).self) {
            let timeZone = TimeZone(identifier: zone) ?? MetricsProfile.unknown.timeZone
            return MetricsProfile(
                weightUnit: WeightUnit(rawValue: unit) ?? .kg, timeZone: timeZone, isKnown: true,
                retention: retentionDays.map { HistoryRetention(days: $0, timeZone: timeZone) })
        }
        return .unknown
    }

    func delete(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM user_profiles WHERE user_id = \(userId)", logger: logger)
    }
}
