import AccessTokens
import Foundation
import PostgresNIO
import ServiceDefaults

/// Revoked sessions and accounts in schema `auth`, for the gateways (`RevocationController`). Each is recorded in the
/// transaction that ends the session or deletes the account, so a revocation exists exactly when that change committed,
/// and notified on `RevocationNotices.channel` in it too (PostgreSQL delivers the notice at the commit).
struct RevocationRepository: Sendable {
    /// How long a revocation is kept: the access-token lifetime plus the verifiers' leeway.
    var lifetime: Duration = .seconds(15 * 60 + 30)
    /// How far back a poll with a cursor looks again: a revocation recorded before a poll began but committed after it
    /// finished is still returned by the next one, provided its transaction took less than this.
    var overlap: Duration = .seconds(30)

    /// Records every session of `sessionIds` (all of `userId`) as revoked at `now`, and forgets expired revocations.
    func revoke(sessionIds: [UUID], userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        guard !sessionIds.isEmpty else { return }
        let expiresAt = now.addingTimeInterval(lifetime.timeInterval)
        try await connection.query(
            """
            INSERT INTO revocations (user_id, session_id, revoked_at, expires_at)
            SELECT \(userId), unnest(\(sessionIds)::uuid[]), \(now), \(expiresAt)
            """, logger: logger)
        try await recorded(now: now, on: connection, logger: logger)
    }

    /// Records every token of `userId` issued up to `now` as revoked (account deletion). The cutoff is `now` rounded
    /// up to a whole second: a token's `iat` is whole seconds, and one issued in the same second may carry the next.
    func revoke(userId: UUID, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let cutoff = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.up))
        let expiresAt = now.addingTimeInterval(lifetime.timeInterval)
        try await connection.query(
            "INSERT INTO revocations (user_id, session_id, revoked_at, expires_at) VALUES (\(userId), NULL, \(cutoff), \(expiresAt))",
            logger: logger)
        try await recorded(now: now, on: connection, logger: logger)
    }

    /// The live revocations recorded after `after` (all live ones when nil), at most `limit`, and the cursor for the
    /// next poll: the database's time at this query less `overlap`, so a poll may return some it returned before; when
    /// `limit` cut the answer short, just before the last one returned, so the next poll goes on from there; and when
    /// the newest returned was recorded (nil when none was).
    func live(after: Date?, limit: Int, now: Date, on connection: PostgresConnection, logger: Logger) async throws -> (
        [Revocation], cursor: Date, newest: Date?
    ) {
        let since = after ?? .distantPast
        var cursor = Date.distantPast
        let clock = try await connection.query("SELECT clock_timestamp() - make_interval(secs => \(overlap.timeInterval))", logger: logger)
        for try await time in clock.decode(Date.self) { cursor = time }
        let rows = try await connection.query(
            """
            SELECT user_id, session_id, revoked_at, expires_at, recorded_at
            FROM revocations WHERE recorded_at > \(since) AND expires_at > \(now) ORDER BY recorded_at LIMIT \(limit)
            """, logger: logger)
        var revocations: [Revocation] = []
        var newest: Date?
        for try await (userId, sessionId, revokedAt, expiresAt, recordedAt) in rows.decode((UUID, UUID?, Date, Date, Date).self) {
            revocations.append(Revocation(userId: userId, sessionId: sessionId, revokedAt: revokedAt, expiresAt: expiresAt))
            newest = recordedAt
        }
        if revocations.count >= limit, let newest { cursor = newest.addingTimeInterval(-0.001) }
        return (revocations, max(cursor, since), newest)
    }

    /// After a revocation was recorded: notifies the held polls and forgets expired revocations.
    private func recorded(now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(RevocationNotices.channel), '')", logger: logger)
        try await connection.query("DELETE FROM revocations WHERE expires_at <= \(now)", logger: logger)
    }
}
