import BackendKit
import Foundation
import Logging
import PostgresNIO
import PostgresSupport

/// SQL for meals and their photos. Every query is scoped to the owner, so another user's meal is never found,
/// and logs to the caller's `logger` (the request's, or the consumer's).
struct MealRepository: Sendable {
    private static let columns: PostgresQuery = """
        SELECT id, user_id, origin, title, description, meal_type, capture_kind, eaten_at, local_date::text, time_zone,
               is_consumed, consumed_at, notes, edited, version, items::text, totals::text, health::text, diet::text,
               unrecognised::text, photo_id, tags, created_at, updated_at, modified_at, modified_tiebreak, change_seq,
               (SELECT coalesce(p.thumbnail, 'pending') FROM meal_photos p WHERE p.photo_id = meals.photo_id) AS photo_thumbnail
        FROM meals
        """

    /// Stores a new meal with the user's next change number (so take no row lock after it in this transaction).
    func insert(_ meal: MealRecord, on connection: PostgresConnection, logger: Logger) async throws {
        let json = try MealJSON(meal)
        let seq = try await SyncClock.next(for: meal.userId, on: connection, logger: logger)
        try await connection.query(
            """
            INSERT INTO meals (id, user_id, origin, title, description, meal_type, capture_kind, eaten_at, local_date, time_zone,
                               is_consumed, consumed_at, notes, edited, version, items, totals, health, diet, unrecognised,
                               has_photo, photo_id, tags, created_at, updated_at, modified_at, modified_tiebreak, change_seq)
            VALUES (\(meal.id), \(meal.userId), \(meal.origin.rawValue), \(meal.title), \(meal.description),
                    \(meal.mealType?.rawValue), \(meal.captureKind.rawValue), \(meal.eatenAt), \(meal.localDate)::date,
                    \(meal.timeZone), \(meal.isConsumed), \(meal.consumedAt), \(meal.notes), \(meal.edited), \(meal.version),
                    \(json.items)::jsonb, \(json.totals)::jsonb, \(json.health)::jsonb, \(json.diet)::jsonb,
                    \(json.unrecognised)::jsonb, \(meal.hasPhoto), \(meal.photoId), \(meal.tags), \(meal.createdAt), \(meal.updatedAt),
                    \(meal.modified.date), \(meal.modified.tiebreak), \(seq))
            """, logger: logger)
    }

    /// Writes every changeable field of `meal` (its id and owner stay) with the user's next change number.
    func update(_ meal: MealRecord, on connection: PostgresConnection, logger: Logger) async throws {
        let json = try MealJSON(meal)
        let seq = try await SyncClock.next(for: meal.userId, on: connection, logger: logger)
        try await connection.query(
            """
            UPDATE meals SET title = \(meal.title), meal_type = \(meal.mealType?.rawValue), eaten_at = \(meal.eatenAt),
                local_date = \(meal.localDate)::date, time_zone = \(meal.timeZone), is_consumed = \(meal.isConsumed),
                consumed_at = \(meal.consumedAt), notes = \(meal.notes), edited = \(meal.edited), version = \(meal.version),
                items = \(json.items)::jsonb, totals = \(json.totals)::jsonb, health = \(json.health)::jsonb,
                diet = \(json.diet)::jsonb, tags = \(meal.tags), has_photo = \(meal.hasPhoto), photo_id = \(meal.photoId),
                updated_at = \(meal.updatedAt), modified_at = \(meal.modified.date),
                modified_tiebreak = \(meal.modified.tiebreak), change_seq = \(seq)
            WHERE id = \(meal.id) AND user_id = \(meal.userId)
            """, logger: logger)
    }

    /// Stores only the meal's write stamp: a write that changed nothing but is the latest (no new version, no change
    /// number, no event), so an older write arriving later still loses to it.
    func saveStamp(_ meal: MealRecord, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE meals SET modified_at = \(meal.modified.date), modified_tiebreak = \(meal.modified.tiebreak)
            WHERE id = \(meal.id) AND user_id = \(meal.userId)
            """, logger: logger)
    }

    /// The caller's meal, locked for update when read inside a transaction that will change it.
    func find(
        _ id: UUID, userId: UUID, on connection: PostgresConnection, forUpdate: Bool = false, logger: Logger
    ) async throws -> MealRecord? {
        var query = Self.columns
        query.sql += " WHERE id = $1 AND user_id = $2" + (forUpdate ? " FOR UPDATE" : "")
        query.binds.append(id, context: .default)
        query.binds.append(userId, context: .default)
        return try await Self.records(try await connection.query(query, logger: logger)).first
    }

    /// The caller's meal, read outside any transaction.
    func find(_ id: UUID, userId: UUID, client: PostgresPool, logger: Logger) async throws -> MealRecord? {
        try await client.withConnection { try await find(id, userId: userId, on: $0, logger: logger) }
    }

    /// A page of the caller's meals, newest first, after `filter.cursor`.
    func list(userId: UUID, filter: MealListFilter, client: PostgresPool, logger: Logger) async throws -> [MealRecord] {
        var query = Self.columns
        var conditions = ["user_id = $1"]
        query.binds.append(userId, context: .default)
        func bind(_ value: some PostgresEncodable & Sendable) throws -> String {
            try query.binds.append(value, context: .default)
            return "$\(query.binds.count)"
        }
        if let from = filter.fromDate { conditions.append("local_date >= \(try bind(from))::date") }
        if let to = filter.toDate { conditions.append("local_date <= \(try bind(to))::date") }
        if let consumed = filter.consumed { conditions.append("is_consumed = \(try bind(consumed))") }
        if let mealType = filter.mealType { conditions.append("meal_type = \(try bind(mealType.rawValue))") }
        if let tag = filter.tag { conditions.append("tags @> ARRAY[\(try bind(tag))]::text[]") }
        if let cursor = filter.cursor {
            conditions.append(
                "(eaten_at, id) < ('epoch'::timestamptz + \(try bind(cursor.eatenAtMicros)) * interval '1 microsecond', \(try bind(cursor.id)))")
        }
        query.sql += " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY eaten_at DESC, id DESC LIMIT \(try bind(filter.limit + 1))"
        return try await Self.records(try await client.query(query, logger: logger))
    }

    /// Deletes the caller's meal (its photo goes with it); false when there was none.
    func delete(_ id: UUID, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            "DELETE FROM meals WHERE id = \(id) AND user_id = \(userId) RETURNING id", logger: logger)
        return try await rows.collect().isEmpty == false
    }

    /// The user's meals written after change `since`, by change number, at most `limit`.
    func changed(userId: UUID, since: Int64, limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [(Int64, MealRecord)] {
        var query = Self.columns
        query.sql += " WHERE user_id = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3"
        query.binds.append(userId, context: .default)
        query.binds.append(since, context: .default)
        query.binds.append(limit, context: .default)
        var changed: [(Int64, MealRecord)] = []
        for try await row in try await connection.query(query, logger: logger) {
            changed.append((try row.makeRandomAccess()["change_seq"].decode(Int64.self), try Self.record(from: row)))
        }
        return changed
    }

    /// Up to `limit` of the user's meals eaten before the day `before` (`YYYY-MM-DD`, the user's calendar), locked; rows
    /// another transaction holds are skipped, so purges running at once never take the same meal.
    func lockOlder(userId: UUID, before: String, limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [MealRecord] {
        var query = Self.columns
        query.sql += " WHERE user_id = $1 AND local_date < $2::date ORDER BY local_date, id LIMIT $3 FOR UPDATE SKIP LOCKED"
        query.binds.append(userId, context: .default)
        query.binds.append(before, context: .default)
        query.binds.append(limit, context: .default)
        return try await Self.records(try await connection.query(query, logger: logger))
    }

    /// Whether no meal of any user has this id (a client-chosen id must not name another user's meal).
    func isIdFree(_ id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query("SELECT 1 FROM meals WHERE id = \(id)", logger: logger).collect().isEmpty
    }

    /// Deletes every meal and photo of a user.
    func deleteAll(userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM meal_photos WHERE user_id = \(userId)", logger: logger)
        try await connection.query("DELETE FROM meals WHERE user_id = \(userId)", logger: logger)
    }

    /// Deletes the meal's photo (the meal stays).
    func deletePhoto(mealId: UUID, userId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM meal_photos WHERE meal_id = \(mealId) AND user_id = \(userId)", logger: logger)
    }

    /// Up to `limit` ids of the user's meals whose photo was stored before `cutoff`, oldest first.
    func mealsWithPhotosStored(
        before cutoff: Date, userId: UUID, limit: Int, client: PostgresPool, logger: Logger
    ) async throws -> [UUID] {
        let rows = try await client.query(
            """
            SELECT meal_id FROM meal_photos WHERE user_id = \(userId) AND stored_at < \(cutoff) ORDER BY stored_at, meal_id LIMIT \(limit)
            """, logger: logger)
        var ids: [UUID] = []
        for try await id in rows.decode(UUID.self) { ids.append(id) }
        return ids
    }

    private static func records(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> [MealRecord] {
        var records: [MealRecord] = []
        for try await row in rows { records.append(try record(from: row)) }
        return records
    }

    /// A meal row with what became of its photo's thumbnail.
    private static func record(from row: PostgresRow) throws -> MealRecord {
        var record = try MealJSON.record(from: row)
        let thumbnail = try row.makeRandomAccess()["photo_thumbnail"].decode(String?.self)
        record.thumbnail = record.hasPhoto ? thumbnail.flatMap(PhotoThumbnailState.init(rawValue:)) ?? .pending : nil
        return record
    }
}

/// A position in the meal list: the last meal of the previous page.
struct MealCursor: Sendable, Equatable {
    /// `eaten_at` in whole microseconds since 1970 (see `ListCursor.decodeTime`).
    var eatenAtMicros: Int64
    var id: UUID
}

/// The filters of `GET /api/meals`.
struct MealListFilter: Sendable {
    var fromDate: String?
    var toDate: String?
    var consumed: Bool?
    var mealType: MealType?
    /// Only meals carrying this tag (normalised).
    var tag: String?
    var cursor: MealCursor?
    var limit: Int
}
