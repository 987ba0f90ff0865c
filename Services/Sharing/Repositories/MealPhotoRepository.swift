import BackendKit
import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import WireJSON

/// Copies of the photos of meals shared with their photo (one per meal, whatever the number of links), stored sealed
/// with AES-256-GCM (`cipher`, keys from `SHARING_PHOTO_ENCRYPTION_KEY`) bound to the meal's id, the key's id beside
/// each. Without a key (`cipher` nil) photos cannot be copied or shown: 503 `photos_not_configured`.
/// Every query logs to the request's `logger`.
struct MealPhotoRepository: Sendable {
    let client: PostgresPool
    let cipher: SealingCipher?

    /// Whether the meal's photo was copied already.
    func exists(mealId: UUID, logger: Logger) async throws -> Bool {
        let rows = try await client.query("SELECT 1 FROM meal_photos WHERE meal_id = \(mealId)", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// Keeps the first copy, sealed; a second share of the same meal changes nothing.
    func save(_ photo: MealPhoto, mealId: UUID, userId: UUID, logger: Logger) async throws {
        let (keyId, sealed) = try requireCipher().seal(photo.bytes.readableBytesView, context: Self.context(mealId))
        try await client.query(
            """
            INSERT INTO meal_photos (meal_id, user_id, media_type, bytes, digest, key_id)
            VALUES (\(mealId), \(userId), \(photo.mediaType), \(ByteBuffer(bytes: sealed)), \(photo.digest), \(keyId))
            ON CONFLICT (meal_id) DO NOTHING
            """, logger: logger)
    }

    /// The photo of an open link that includes it, and when the link expires; nil otherwise.
    func photo(token: String, now: Date, logger: Logger) async throws -> (MealPhoto, expiresAt: Date)? {
        let rows = try await client.query(
            """
            SELECT meal_photos.meal_id, meal_photos.media_type, meal_photos.bytes, meal_photos.digest, meal_photos.key_id, links.expires_at
            FROM links JOIN meals ON meals.meal_id = links.meal_id AND NOT meals.deleted
            JOIN meal_photos ON meal_photos.meal_id = links.meal_id
            WHERE links.token = \(token) AND links.include_photo AND links.revoked_at IS NULL AND links.expires_at > \(now)
            """, logger: logger)
        for try await (mealId, mediaType, stored, digest, keyId, expiresAt) in rows.decode((UUID, String, ByteBuffer, String, String?, Date).self) {
            return (MealPhoto(mediaType: mediaType, bytes: try open(stored, keyId: keyId, mealId: mealId, logger: logger), digest: digest), expiresAt)
        }
        return nil
    }

    /// Seals, a few at a time, every copy stored plain or under a key that is no longer the current one; answers how
    /// many. Rows are locked with `FOR UPDATE SKIP LOCKED`, so replicas running it at once never take the same copy; a
    /// copy that cannot be opened (its key was dropped from the settings) is logged and left as it is.
    @discardableResult
    func sealDue(batchSize: Int = 16, logger: Logger) async throws -> Int {
        guard let cipher else { return 0 }
        var sealedCount = 0
        var skipping: [UUID] = []
        while true {
            let (taken, unreadable, sealed) = try await client.transaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    SELECT meal_id, bytes, key_id FROM meal_photos
                    WHERE key_id IS DISTINCT FROM \(cipher.keys.currentId) AND NOT (meal_id = ANY(\(skipping)))
                    ORDER BY meal_id LIMIT \(batchSize) FOR UPDATE SKIP LOCKED
                    """, logger: logger)
                var due: [(UUID, ByteBuffer, String?)] = []
                for try await row in rows.decode((UUID, ByteBuffer, String?).self) { due.append(row) }
                var unreadable: [UUID] = []
                var sealed = 0
                for (mealId, stored, keyId) in due {
                    do {
                        let plain = try open(stored, keyId: keyId, mealId: mealId, logger: logger)
                        let (newKeyId, resealed) = try cipher.seal(plain.readableBytesView, context: Self.context(mealId))
                        try await connection.query(
                            "UPDATE meal_photos SET bytes = \(ByteBuffer(bytes: resealed)), key_id = \(newKeyId) WHERE meal_id = \(mealId)",
                            logger: logger)
                        sealed += 1
                    } catch is APIError {
                        unreadable.append(mealId)
                    }
                }
                return (due.count, unreadable, sealed)
            }
            sealedCount += sealed
            skipping += unreadable
            if taken < batchSize { break }
        }
        if sealedCount > 0 { logger.info("shared photo copies sealed under the current key", metadata: ["count": "\(sealedCount)"]) }
        return sealedCount
    }

    /// The plain bytes of a stored copy: opened, or as they are when stored before sealing (`keyId` nil).
    private func open(_ stored: ByteBuffer, keyId: String?, mealId: UUID, logger: Logger) throws -> ByteBuffer {
        guard let keyId else { return stored }
        do {
            return ByteBuffer(bytes: try requireCipher().open(stored.readableBytesView, keyId: keyId, context: Self.context(mealId)))
        } catch let error as SealedBytesUnreadable {
            logger.error(
                "shared photo copy cannot be opened; is its key missing from SHARING_PHOTO_ENCRYPTION_PREVIOUS_KEYS?",
                metadata: ["meal_id": .string(mealId.lowercasedString), "encryption_key_id": .string(error.keyId)])
            throw APIError(.serviceUnavailable, code: "photo_unreadable", message: "This photo cannot be read right now.")
        }
    }

    private func requireCipher() throws -> SealingCipher {
        guard let cipher else {
            throw APIError(
                .serviceUnavailable, code: "photos_not_configured",
                message: "This server cannot store or show shared photos (no photo encryption key is set up).")
        }
        return cipher
    }

    private static func context(_ mealId: UUID) -> String {
        "nutritionai.shared-photo.\(mealId.lowercasedString)"
    }
}
