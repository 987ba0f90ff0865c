import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport

/// SQL for the stored form of meal photos: their sealed parts and thumbnails (`PhotoVault` seals and opens them).
/// Every query logs to the caller's `logger`.
struct PhotoRepository: Sendable {
    /// Photos are written in parts of at most this many plain bytes, each in its own statement: storing an upload then
    /// holds the photo once plus one part in memory, where one bind message of the whole photo held it three times.
    static let partBytes = 1 << 20

    /// A stored photo as read: sealed parts under `keyId`, or plain parts when `keyId` is nil (stored before sealing;
    /// a photo stored before parts has its inline bytes as its one part).
    struct Row: Sendable {
        var photoId: UUID
        var mediaType: String
        var keyId: String?
        var thumbnail: PhotoThumbnailState
        var parts: [ByteBuffer]
    }

    /// Stores `photo` for the meal (the meal's earlier photo must be deleted first).
    func save(_ photo: SealedPhoto, mealId: UUID, userId: UUID, storedAt: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO meal_photos (meal_id, user_id, media_type, bytes, photo_id, stored_at, key_id, thumbnail)
            VALUES (\(mealId), \(userId), \(photo.mediaType), NULL, \(photo.photoId), \(storedAt), \(photo.keyId),
                    \(photo.thumbnailState.rawValue))
            """, logger: logger)
        try await saveParts(photo.parts, photoId: photo.photoId, on: connection, logger: logger)
        if let thumbnail = photo.thumbnail {
            try await saveThumbnail(thumbnail, keyId: photo.keyId, photoId: photo.photoId, on: connection, logger: logger)
        }
    }

    /// The photo of the caller's meal.
    func photo(mealId: UUID, userId: UUID, client: PostgresPool, logger: Logger) async throws -> Row? {
        try await client.withConnection { connection in
            try await row(
                "SELECT \(unescaped: Self.columns) FROM meal_photos WHERE meal_id = \(mealId) AND user_id = \(userId)", on: connection,
                logger: logger)
        }
    }

    /// The photo a signed URL names. Not scoped to a user: only the meals service signs photo URLs, and only for the
    /// photo's owner.
    func photo(photoId: UUID, client: PostgresPool, logger: Logger) async throws -> Row? {
        try await client.withConnection { connection in
            try await row("SELECT \(unescaped: Self.columns) FROM meal_photos WHERE photo_id = \(photoId)", on: connection, logger: logger)
        }
    }

    /// The sealed thumbnail of photo `photoId` and the key that sealed it; nil without one.
    func thumbnail(photoId: UUID, client: PostgresPool, logger: Logger) async throws -> (keyId: String, sealed: ByteBuffer)? {
        let rows = try await client.query("SELECT key_id, bytes FROM meal_photo_thumbnails WHERE photo_id = \(photoId)", logger: logger)
        for try await (keyId, sealed) in rows.decode((String, ByteBuffer).self) { return (keyId, sealed) }
        return nil
    }

    /// Up to `limit` photos that the upkeep job has work on (not sealed under `currentKeyId`, no thumbnail tried yet, or
    /// a thumbnail sealed under an older key), oldest first, locked; rows another transaction holds are skipped, so
    /// replicas running the job at once never take the same photo.
    func lockDue(currentKeyId: String, skipping: [UUID], limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [Row] {
        let rows = try await connection.query(
            """
            SELECT photo_id FROM meal_photos p
            WHERE (p.key_id IS DISTINCT FROM \(currentKeyId) OR p.thumbnail IS NULL
                   OR EXISTS (SELECT 1 FROM meal_photo_thumbnails t WHERE t.photo_id = p.photo_id AND t.key_id <> \(currentKeyId)))
              AND NOT (p.photo_id = ANY(\(skipping)))
            ORDER BY p.stored_at, p.photo_id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """, logger: logger)
        var ids: [UUID] = []
        for try await id in rows.decode(UUID.self) { ids.append(id) }
        var due: [Row] = []
        for id in ids {
            if let row = try await row("SELECT \(unescaped: Self.columns) FROM meal_photos WHERE photo_id = \(id)", on: connection, logger: logger) {
                due.append(row)
            }
        }
        return due
    }

    /// Replaces a locked photo's stored bytes with `parts` (inline bytes of a photo stored before parts go).
    func replaceParts(_ parts: SealedPhotoParts, photoId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM meal_photo_parts WHERE photo_id = \(photoId)", logger: logger)
        try await saveParts(parts, photoId: photoId, on: connection, logger: logger)
        try await connection.query("UPDATE meal_photos SET key_id = \(parts.keyId), bytes = NULL WHERE photo_id = \(photoId)", logger: logger)
    }

    /// Stores (or replaces) the sealed thumbnail of a photo and marks it ready.
    func saveThumbnail(_ sealed: [UInt8], keyId: String, photoId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO meal_photo_thumbnails (photo_id, media_type, key_id, bytes) VALUES (\(photoId), 'image/jpeg', \(keyId), \(ByteBuffer(bytes: sealed)))
            ON CONFLICT (photo_id) DO UPDATE SET key_id = EXCLUDED.key_id, bytes = EXCLUDED.bytes
            """, logger: logger)
        try await connection.query("UPDATE meal_photos SET thumbnail = 'ready' WHERE photo_id = \(photoId)", logger: logger)
    }

    /// Records that no thumbnail can be made of the photo.
    func markThumbnailUnavailable(photoId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE meal_photos SET thumbnail = 'unavailable' WHERE photo_id = \(photoId)", logger: logger)
    }

    /// The sealed thumbnail of a locked photo, for sealing it again.
    func thumbnail(photoId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> (keyId: String, sealed: ByteBuffer)? {
        let rows = try await connection.query("SELECT key_id, bytes FROM meal_photo_thumbnails WHERE photo_id = \(photoId)", logger: logger)
        for try await (keyId, sealed) in rows.decode((String, ByteBuffer).self) { return (keyId, sealed) }
        return nil
    }

    private func saveParts(_ parts: SealedPhotoParts, photoId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        for part in 0..<parts.count {
            try await connection.query(
                "INSERT INTO meal_photo_parts (photo_id, part, bytes) VALUES (\(photoId), \(part), \(try parts.sealed(part)))", logger: logger)
        }
    }

    private static let columns = "photo_id, media_type, key_id, coalesce(thumbnail, 'pending'), bytes"

    private func row(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> Row? {
        var found: Row?
        for try await (photoId, mediaType, keyId, thumbnail, inline) in try await connection.query(query, logger: logger)
            .decode((UUID, String, String?, String, ByteBuffer?).self)
        {
            found = Row(
                photoId: photoId, mediaType: mediaType, keyId: keyId, thumbnail: PhotoThumbnailState(rawValue: thumbnail) ?? .pending,
                parts: inline.map { [$0] } ?? [])
        }
        guard var row = found, row.parts.isEmpty else { return found }
        let parts = try await connection.query(
            "SELECT bytes FROM meal_photo_parts WHERE photo_id = \(row.photoId) ORDER BY part", logger: logger)
        for try await bytes in parts.decode(ByteBuffer.self) { row.parts.append(bytes) }
        return row
    }
}
