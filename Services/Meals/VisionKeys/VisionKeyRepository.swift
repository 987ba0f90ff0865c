import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport

/// The sealed vision keys of users, one per user. Every query logs to the caller's `logger`.
struct VisionKeyRepository: Sendable {
    /// A stored row: the sealed key and what may be shown of it.
    struct Row: Sendable {
        var keyId: String
        var sealed: [UInt8]
        var baseURL: String
        var model: String
        /// The id the key's usage is counted under (`vision_usage.usage_key`).
        var usageKey: UUID
        var updatedAt: Date
    }

    /// Stores the user's key, replacing the one they had.
    func save(_ row: Row, userId: UUID, client: PostgresPool, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO user_vision_keys (user_id, key_id, sealed, base_url, model, usage_key, updated_at)
            VALUES (\(userId), \(row.keyId), \(ByteBuffer(bytes: row.sealed)), \(row.baseURL), \(row.model), \(row.usageKey), \(row.updatedAt))
            ON CONFLICT (user_id) DO UPDATE SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed, base_url = EXCLUDED.base_url,
                model = EXCLUDED.model, usage_key = EXCLUDED.usage_key, updated_at = EXCLUDED.updated_at
            """, logger: logger)
    }

    /// The user's stored key; nil without one.
    func find(userId: UUID, client: PostgresPool, logger: Logger) async throws -> Row? {
        let rows = try await client.query(
            "SELECT key_id, sealed, base_url, model, usage_key, updated_at FROM user_vision_keys WHERE user_id = \(userId)", logger: logger)
        for try await (keyId, sealed, baseURL, model, usageKey, updatedAt) in rows.decode((String, ByteBuffer, String, String, UUID, Date).self) {
            return Row(
                keyId: keyId, sealed: Array(sealed.readableBytesView), baseURL: baseURL, model: model, usageKey: usageKey, updatedAt: updatedAt)
        }
        return nil
    }

    /// Forgets the user's key, if they had one.
    func delete(userId: UUID, client: PostgresPool, logger: Logger) async throws {
        try await client.query("DELETE FROM user_vision_keys WHERE user_id = \(userId)", logger: logger)
    }

    /// Forgets the user's key inside the caller's transaction (`user.deleted`).
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM user_vision_keys WHERE user_id = \(userId)", logger: logger)
    }
}
