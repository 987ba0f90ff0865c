import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import WireJSON

/// The SQL of `idempotency_keys` (`Migration.idempotencyKeys`): a user's key, the fingerprint of the request that
/// first used it, and, once that request succeeded, its answer.
struct IdempotencyKeys: Sendable {
    /// A stored answer.
    struct StoredResponse: Sendable, Equatable {
        var status: Int
        var headers: [String: String]
        var body: ByteBuffer
    }

    /// What a request with a key may do.
    enum Claim: Sendable, Equatable {
        /// It is the first with this key (or takes over one abandoned past its lease): go ahead.
        case claimed
        /// The key answered a request with another method, path or body.
        case reusedWithOtherRequest
        /// The first request with the key is still running.
        case inFlight
        /// The first request succeeded: answer what it answered.
        case completed(StoredResponse)
    }

    let client: PostgresPool
    /// How long a claim holds before it counts as abandoned (its process died mid-request).
    let lease: Duration

    /// Claims `key` of `userId` for a request with `fingerprint`.
    func claim(key: String, userId: UUID, fingerprint: [UInt8], logger: Logger) async throws -> Claim {
        let leaseMicros = Int64(lease.timeInterval * 1_000_000)
        let hash = ByteBuffer(bytes: fingerprint)
        for _ in 0..<3 {
            let inserted = try await client.query(
                """
                INSERT INTO idempotency_keys (user_id, key, request_hash, locked_until, created_at)
                VALUES (\(userId), \(key), \(hash), now() + \(leaseMicros) * interval '1 microsecond', now())
                ON CONFLICT (user_id, key) DO NOTHING RETURNING 1
                """, logger: logger)
            for try await _ in inserted { return .claimed }

            let rows = try await client.query(
                """
                SELECT request_hash, status, headers::text, body, locked_until > now() FROM idempotency_keys
                WHERE user_id = \(userId) AND key = \(key)
                """, logger: logger)
            var existing: (ByteBuffer, Int?, String?, ByteBuffer?, Bool)?
            for try await row in rows.decode((ByteBuffer, Int?, String?, ByteBuffer?, Bool).self) { existing = row }
            guard let (storedHash, status, headers, body, locked) = existing else { continue }  // released meanwhile
            if storedHash != hash { return .reusedWithOtherRequest }
            if let status {
                let fields = headers.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:]
                return .completed(StoredResponse(status: status, headers: fields, body: body ?? ByteBuffer()))
            }
            if locked { return .inFlight }
            let taken = try await client.query(
                """
                UPDATE idempotency_keys SET locked_until = now() + \(leaseMicros) * interval '1 microsecond'
                WHERE user_id = \(userId) AND key = \(key) AND status IS NULL AND locked_until <= now() RETURNING 1
                """, logger: logger)
            for try await _ in taken {
                logger.warning("idempotency key taken over after its first request was abandoned")
                return .claimed
            }
        }
        return .inFlight
    }

    /// Stores the answer of the request that claimed the key.
    func complete(key: String, userId: UUID, response: StoredResponse, logger: Logger) async throws {
        let headers = String(decoding: try WireJSONEncoder().encode(response.headers), as: UTF8.self)
        try await client.query(
            """
            UPDATE idempotency_keys SET status = \(response.status), headers = \(headers)::jsonb, body = \(response.body)
            WHERE user_id = \(userId) AND key = \(key)
            """, logger: logger)
    }

    /// Frees the key of a request that failed, so that a retry runs it again.
    func release(key: String, userId: UUID, logger: Logger) async throws {
        try await client.query(
            "DELETE FROM idempotency_keys WHERE user_id = \(userId) AND key = \(key) AND status IS NULL", logger: logger)
    }

    /// Forgets keys first used before `cutoff`; returns how many.
    @discardableResult
    func purge(olderThan cutoff: Date, logger: Logger) async throws -> Int {
        let rows = try await client.query(
            """
            WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < \(cutoff) RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """, logger: logger)
        var count: Int64 = 0
        for try await n in rows.decode(Int64.self) { count = n }
        return Int(count)
    }
}
