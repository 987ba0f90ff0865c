import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport

/// Copies of the photos of meals shared with their photo (one per meal, whatever the number of links).
/// Every query logs to the request's `logger`.
struct MealPhotoRepository: Sendable {
    let client: PostgresPool

    /// Whether the meal's photo was copied already.
    func exists(mealId: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query("SELECT 1 FROM meal_photos WHERE meal_id = \(mealId)", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Keeps the first copy; a second share of the same meal changes nothing.
    func save(_ photo: MealPhoto, mealId: UUID, userId: UUID, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO meal_photos (meal_id, user_id, media_type, bytes, digest)
            VALUES (\(mealId), \(userId), \(photo.mediaType), \(photo.bytes), \(photo.digest))
            ON CONFLICT (meal_id) DO NOTHING
            """, logger: logger)
    }

    /// The photo of an open link that includes it, and when the link expires; nil otherwise.
    func photo(token: String, now: Date, logger: Logger) async throws -> (MealPhoto, expiresAt: Date)? {
        let rows = try await client.query(
            """
            SELECT meal_photos.media_type, meal_photos.bytes, meal_photos.digest, links.expires_at
            FROM links JOIN meals ON meals.meal_id = links.meal_id AND NOT meals.deleted
            JOIN meal_photos ON meal_photos.meal_id = links.meal_id
            WHERE links.token = \(token) AND links.include_photo AND links.revoked_at IS NULL AND links.expires_at > \(now)
            """, logger: logger)
        for try await (mediaType, bytes, digest, expiresAt) in rows.decode((String, ByteBuffer, String, Date).self) {
            return (MealPhoto(mediaType: mediaType, bytes: bytes, digest: digest), expiresAt)
        }
        return nil
    }
}
