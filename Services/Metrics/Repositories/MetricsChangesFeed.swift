import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import SyncContracts

/// The metrics area of the changes feed: recorded days, water entries and the tombstones of emptied days and removed
/// entries, read in one statement (one snapshot), so a change committed meanwhile is either in every part or in none.
struct MetricsChangesFeed: Sendable {
    /// The user's changes after `since`, oldest first, at most `limit`.
    func changes(
        userId: UUID, since: Int64, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [MetricsFeedEntry] {
        let rows = try await connection.query(
            """
            (SELECT \(DailyMetrics.syncType), day::text, day::text, weight_kg, ketones, notes, NULL::int4, version, updated_at,
                 updated_at, modified_at, modified_tiebreak, change_seq, NULL::timestamptz
             FROM daily_metrics
             WHERE user_id = \(userId) AND change_seq > \(since) AND (weight_kg IS NOT NULL OR ketones IS NOT NULL)
             ORDER BY change_seq LIMIT \(limit))
            UNION ALL
            (SELECT \(WaterEntry.syncType), id::text, day::text, NULL, NULL, NULL, millilitres, version, updated_at, created_at,
                 modified_at, modified_tiebreak, change_seq, NULL
             FROM water_entries WHERE user_id = \(userId) AND change_seq > \(since)
             ORDER BY change_seq LIMIT \(limit))
            UNION ALL
            (SELECT entity_type, entity_id, NULL, NULL, NULL, NULL, NULL, version, deleted_at, deleted_at, NULL, NULL, change_seq, deleted_at
             FROM sync_tombstones
             WHERE user_id = \(userId) AND entity_type IN (\(DailyMetrics.syncType), \(WaterEntry.syncType)) AND change_seq > \(since)
             ORDER BY change_seq LIMIT \(limit))
            ORDER BY 13 LIMIT \(limit)
            """, logger: logger)
        var entries: [MetricsFeedEntry] = []
        typealias Row = (String, String, String?, Double?, Double?, String?, Int?, Int, Date, Date, Date?, String?, Int64, Date?)
        for try await row in rows.decode(Row.self) {
            let (type, id, day, weight, ketones, notes, millilitres, version, updatedAt, createdAt, modifiedAt, tiebreak, seq, deletedAt) = row
            if let deletedAt {
                entries.append(.removed(seq: seq, type: type, id: id, version: version, deletedAt: deletedAt))
            } else if type == WaterEntry.syncType, let millilitres, let uuid = UUID(uuidString: id), let day, let modifiedAt {
                let entry = try WaterEntryRepository.entry(
                    (uuid, userId, day, millilitres, version, createdAt, updatedAt, modifiedAt, tiebreak ?? ""))
                entries.append(.water(seq: seq, entry))
            } else if let day {
                let record = try DailyMetricsRepository.record((userId, day, weight, ketones, notes, version, updatedAt, modifiedAt, tiebreak))
                entries.append(.day(seq: seq, record))
            }
        }
        return entries
    }
}
