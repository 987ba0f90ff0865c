import Foundation
import Logging
import ServiceDefaults
import WireJSON

/// Users' own vision keys: stores them sealed (`VisionKeyCipher`), answers what may be shown of them (never the key),
/// and opens them for the user's photo analyses. A key sealed under a previous encryption key is sealed again under the
/// current one when it is next used, so a rotation completes as users analyse photos. Without an encryption key
/// (`MEALS_VISION_KEY_ENCRYPTION_KEY` unset) keys cannot be stored: 503 `vision_keys_not_configured`.
struct VisionKeyVault: Sendable {
    let store: any VisionKeyStore
    let cipher: VisionKeyCipher?
    let now: @Sendable () -> Date

    /// Whether keys can be stored at all; throws 503 `vision_keys_not_configured` when not, before the key is checked.
    func requireStorage() throws {
        _ = try requireCipher()
    }

    /// Stores the user's key (replacing theirs, its usage then counted under a new id) and answers its status.
    func store(_ key: UserVisionKey, userId: UUID, logger: Logger) async throws -> VisionKeyStatusBody {
        let (keyId, sealed) = try requireCipher().seal(key.apiKey, userId: userId)
        let row = VisionKeyRepository.Row(
            keyId: keyId, sealed: sealed, baseURL: key.baseURL.absoluteString, model: key.model, usageKey: UUID(), updatedAt: now())
        try await store.save(row, userId: userId, logger: logger)
        logger.info("vision key stored", metadata: ["user_id": .string(userId.lowercasedString), "encryption_key_id": .string(keyId)])
        return VisionKeyStatusBody(row)
    }

    /// What the user's stored key is (base URL, model, when set), never the key itself.
    func status(userId: UUID, logger: Logger) async throws -> VisionKeyStatusBody {
        guard let row = try await store.find(userId: userId, logger: logger) else { return .none }
        return VisionKeyStatusBody(row)
    }

    /// Forgets the user's key, if they had one.
    func remove(userId: UUID, logger: Logger) async throws {
        try await store.delete(userId: userId, logger: logger)
    }

    /// The user's key, opened; nil without one. 409 `vision_key_unreadable` when it can no longer be opened (its
    /// encryption key was dropped), so the user sets it again.
    func key(of userId: UUID, logger: Logger) async throws -> UserVisionKey? {
        guard let row = try await store.find(userId: userId, logger: logger) else { return nil }
        guard let cipher, let baseURL = URL(string: row.baseURL) else { throw Self.unreadable }
        let apiKey: String
        do {
            apiKey = try cipher.open(row.sealed, keyId: row.keyId, userId: userId)
        } catch {
            logger.warning("stored vision key cannot be opened", metadata: ["encryption_key_id": .string(row.keyId)])
            throw Self.unreadable
        }
        if row.keyId != cipher.keys.currentId {
            let (keyId, sealed) = try cipher.seal(apiKey, userId: userId)
            var resealed = row
            (resealed.keyId, resealed.sealed) = (keyId, sealed)
            try await store.save(resealed, userId: userId, logger: logger)
        }
        return UserVisionKey(apiKey: apiKey, baseURL: baseURL, model: row.model, usageKey: row.usageKey)
    }

    private func requireCipher() throws -> VisionKeyCipher {
        guard let cipher else {
            throw APIError(
                .serviceUnavailable, code: "vision_keys_not_configured",
                message: "This server cannot store vision keys (no encryption key is set up).")
        }
        return cipher
    }

    private static var unreadable: APIError {
        APIError(
            .conflict, code: "vision_key_unreadable",
            message: "Your stored vision key can no longer be read; set it again with PUT /api/users/vision-key.")
    }
}
