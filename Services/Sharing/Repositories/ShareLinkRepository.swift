import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// Share links: creation, the owner's list, revocation, and the public look-ups that open them.
/// Every query logs to the caller's `logger` (the request's, or the consumer's).
struct ShareLinkRepository: Sendable {
    let client: PostgresPool

    func create(_ link: ShareLink, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO links (token, link_id, meal_id, user_id, created_at, expires_at, include_photo, show_display_name)
            VALUES (\(link.token), \(link.linkId), \(link.mealId), \(link.userId), \(link.createdAt), \(link.expiresAt),
                \(link.includePhoto), \(link.showDisplayName))
            """, logger: logger)
    }

    /// Adds counted views to their links in one statement (concurrent writers never lose a count); a link gone
    /// meanwhile (its owner deleted) takes nothing.
    func addViews(_ views: [String: PendingViews], logger: Logger) async throws {
        let tokens = Array(views.keys)
        let counts = tokens.map { Int64(views[$0]!.count) }
        let times = tokens.map { views[$0]!.lastViewedAt }
        try await client.query(
            """
            UPDATE links SET view_count = links.view_count + viewed.count,
                last_viewed_at = GREATEST(links.last_viewed_at, viewed.last_viewed_at)
            FROM unnest(\(tokens)::text[], \(counts)::int8[], \(times)::timestamptz[]) AS viewed (token, count, last_viewed_at)
            WHERE links.token = viewed.token
            """, logger: logger)
    }

    /// An open link's meal without counting a view (the view counts through `ViewCounter`; a card and a photo are
    /// parts of a view, not views); nil when the link does not open now (see `status`).
    func peek(token: String, now: Date, logger: Logger) async throws -> SharedMeal? {
        try await sharedMeal(
            client.query(
                """
                SELECT links.token, meals.snapshot, display_names.display_name, links.expires_at, meal_photos.digest
                FROM links JOIN meals ON meals.meal_id = links.meal_id AND NOT meals.deleted AND meals.snapshot IS NOT NULL
                LEFT JOIN display_names ON display_names.user_id = links.user_id AND links.show_display_name
                LEFT JOIN meal_photos ON meal_photos.meal_id = links.meal_id AND links.include_photo
                WHERE links.token = \(token) AND links.revoked_at IS NULL AND links.expires_at > \(now)
                """, logger: logger))
    }

    /// What an open link's JSON view is made from, without the meal's snapshot (see `SharedViewStamp`); nil when
    /// the link does not open now. The same conditions as `peek`.
    func stamp(token: String, now: Date, logger: Logger) async throws -> SharedViewStamp? {
        try await client.execute(SharedViewStampStatement(token: token, now: now), logger: logger).first
    }

    /// Why a link does not open: nil when no such link exists (404), else expired, revoked or meal deleted (410).
    func status(token: String, now: Date, logger: Logger) async throws -> LinkStatus? {
        try await links("\(unescaped: Self.selectLinks) WHERE links.token = \(token)", logger: logger).first?.status(at: now)
    }

    /// The caller's links, newest first, `limit` after `cursor`.
    func list(userId: UUID, after cursor: LinkCursor?, limit: Int, logger: Logger) async throws -> [ShareLink] {
        guard let cursor else {
            return try await links(
                "\(unescaped: Self.selectLinks) WHERE links.user_id = \(userId) \(unescaped: Self.newestFirst) LIMIT \(limit)",
                logger: logger)
        }
        return try await links(
            """
            \(unescaped: Self.selectLinks) WHERE links.user_id = \(userId)
                AND (links.created_at, links.link_id)
                    < ('epoch'::timestamptz + \(cursor.createdAtMicros) * interval '1 microsecond', \(cursor.linkId))
            \(unescaped: Self.newestFirst) LIMIT \(limit)
            """, logger: logger)
    }

    /// Revokes the owner's link (again is fine); false when the caller owns no such link. When no other link of the
    /// meal still opens, the meal's card renders go too.
    func revoke(token: String, userId: UUID, now: Date, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            """
            WITH revoked AS (
                UPDATE links SET revoked_at = COALESCE(revoked_at, \(now)) WHERE token = \(token) AND user_id = \(userId) RETURNING meal_id
            ), unused AS (
                DELETE FROM card_renders WHERE meal_id IN (SELECT meal_id FROM revoked) AND NOT EXISTS (
                    SELECT 1 FROM links WHERE links.meal_id = card_renders.meal_id AND links.token <> \(token)
                        AND links.revoked_at IS NULL AND links.expires_at > \(now))
            )
            SELECT 1 FROM revoked
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM links WHERE user_id = \(userId)", logger: logger)
    }

    private static let selectLinks = """
        SELECT links.token, links.link_id, links.meal_id, links.user_id, links.created_at, links.expires_at, links.revoked_at,
            links.include_photo, links.show_display_name, links.view_count, links.last_viewed_at,
            live.snapshot ->> 'title', (live.snapshot -> 'totals' ->> 'calories')::double precision
        FROM links LEFT JOIN meals ON meals.meal_id = links.meal_id
        LEFT JOIN LATERAL (SELECT meals.snapshot::json AS snapshot WHERE NOT meals.deleted) AS live ON true
        """
    private static let newestFirst = "ORDER BY links.created_at DESC, links.link_id DESC"

    private func links(_ query: PostgresQuery, logger: Logger) async throws -> [ShareLink] {
        var found: [ShareLink] = []
        let rows = try await client.query(query, logger: logger)
        for try await row in rows.decode((String, UUID, UUID, UUID, Date, Date, Date?, Bool, Bool, Int, Date?, String?, Double?).self) {
            found.append(
                ShareLink(
                    token: row.0, linkId: row.1, mealId: row.2, userId: row.3, createdAt: row.4, expiresAt: row.5, revokedAt: row.6,
                    includePhoto: row.7, showDisplayName: row.8, viewCount: row.9, lastViewedAt: row.10, mealTitle: row.11, mealCalories: row.12))
        }
        return found
    }

    private func sharedMeal(_ rows: PostgresRows) async throws -> SharedMeal? {
        for try await (token, snapshot, displayName, expiresAt, digest) in rows.decode((String, String, String?, Date, String?).self) {
            return SharedMeal(
                token: token, meal: try MealSnapshotRepository.decode(snapshot), displayName: displayName, expiresAt: expiresAt,
                photoDigest: digest)
        }
        return nil
    }
}

/// Where the owner's list continues: after the link created at `createdAtMicros` with `linkId`.
struct LinkCursor: Sendable {
    /// `created_at` in whole microseconds since 1970 (see `ListCursor.decodeTime`).
    var createdAtMicros: Int64
    var linkId: UUID
}
