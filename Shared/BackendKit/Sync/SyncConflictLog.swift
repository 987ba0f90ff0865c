import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import SyncContracts
import WireJSON

/// The conflicts a schema's last-write-wins rule resolved (`sync_conflicts`, `Migration.sync`): who, which entity,
/// both sides and the winner, listed newest first at `GET /api/sync/conflicts` and dropped with the tombstones.
public enum SyncConflictLog {
    private static let encoder: JSONEncoder = {
        let encoder = WireJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Records a conflict the user's write met: `stored` is the side on the server, `incoming` the write.
    public static func record(
        userId: UUID, type: String, entityId: String, resolution: SyncConflictResolution, stored: some Encodable,
        incoming: some Encodable, at now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let storedJSON = String(decoding: try encoder.encode(stored), as: UTF8.self)
        let incomingJSON = String(decoding: try encoder.encode(incoming), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO sync_conflicts (id, user_id, entity_type, entity_id, resolution, winner, stored, incoming, resolved_at)
            VALUES (\(UUID()), \(userId), \(type), \(entityId), \(resolution.rawValue), \(resolution.winner),
                    \(storedJSON)::jsonb, \(incomingJSON)::jsonb, \(now))
            """, logger: logger)
        logger.info(
            "sync conflict resolved",
            metadata: ["entity_type": .string(type), "resolution": .string(resolution.rawValue), "winner": .string(resolution.winner)])
    }

    /// A page of the user's conflicts, newest first, after `cursor` (a `nextCursor` of an earlier page).
    public static func list(
        userId: UUID, limit: Int, cursor: String?, client: PostgresPool, logger: Logger
    ) async throws -> SyncConflictPage<JSONValue> {
        var after: (micros: Int64, id: UUID)?
        if let cursor { after = try ListCursor.decodeTime(cursor) }
        let rows: PostgresRows
        if let after {
            rows = try await client.query(
                """
                SELECT id, entity_type, entity_id, resolution, stored::text, incoming::text, resolved_at FROM sync_conflicts
                WHERE user_id = \(userId)
                  AND (resolved_at, id) < ('epoch'::timestamptz + \(after.micros) * interval '1 microsecond', \(after.id))
                ORDER BY resolved_at DESC, id DESC LIMIT \(limit + 1)
                """, logger: logger)
        } else {
            rows = try await client.query(
                """
                SELECT id, entity_type, entity_id, resolution, stored::text, incoming::text, resolved_at FROM sync_conflicts
                WHERE user_id = \(userId) ORDER BY resolved_at DESC, id DESC LIMIT \(limit + 1)
                """, logger: logger)
        }
        let decoder = JSONDecoder()
        var conflicts: [SyncConflictBody<JSONValue>] = []
        for try await row in rows.decode((UUID, String, String, String, String, String, Date).self) {
            let resolution = SyncConflictResolution(rawValue: row.3) ?? .staleWriteIgnored
            conflicts.append(
                SyncConflictBody(
                    id: row.0, type: row.1, entityId: row.2, resolution: resolution, winner: resolution.winner,
                    stored: try decoder.decode(JSONValue.self, from: Data(row.4.utf8)),
                    incoming: try decoder.decode(JSONValue.self, from: Data(row.5.utf8)), resolvedAt: row.6))
        }
        let page = Array(conflicts.prefix(limit))
        let next = conflicts.count > limit ? page.last.map { ListCursor.encode(time: $0.resolvedAt, id: $0.id) } : nil
        return SyncConflictPage(conflicts: page, nextCursor: next)
    }
}
