import BackendKit
import Foundation
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import WireJSON

/// Brings stored photos up to date, a few at a time: seals photos stored before sealing, seals again under the current
/// key every photo and thumbnail sealed under a previous one, and makes the thumbnails of photos stored before
/// thumbnails existed (once made or found impossible, a photo is not tried again). Each batch is one transaction over
/// rows locked with `FOR UPDATE SKIP LOCKED`, so replicas running it at once never take the same photo. A photo that
/// cannot be opened (its key was dropped from the settings) is logged and left as it is. The periodic job calls
/// `run(logger:)` until nothing is due; tests call it directly.
struct MealPhotoUpkeep: Sendable {
    let client: PostgresPool
    let vault: PhotoVault
    let rows = PhotoRepository()
    /// Photos taken per transaction (each may need a thumbnail, seconds at worst).
    var batchSize = 4

    /// What one run did.
    struct Outcome: Sendable, Equatable {
        var sealed = 0
        var thumbnailsMade = 0
        var thumbnailsUnavailable = 0
        var unreadable = 0
    }

    /// Works through every due photo; answers what it did. Without a photo encryption key there is nothing to do.
    @discardableResult
    func run(logger: Logger) async throws -> Outcome {
        guard let cipher = vault.cipher else { return Outcome() }
        var outcome = Outcome()
        var skipping: [UUID] = []
        while true {
            let taken = try await client.transaction(logger: logger) { connection in
                var batch = Outcome()
                let due = try await rows.lockDue(
                    currentKeyId: cipher.keys.currentId, skipping: skipping, limit: batchSize, on: connection, logger: logger)
                var unreadable: [UUID] = []
                for row in due {
                    do {
                        try await bringUpToDate(row, cipher: cipher, outcome: &batch, on: connection, logger: logger)
                    } catch let error as SealedBytesUnreadable {
                        logger.error(
                            "stored photo cannot be opened; is its key missing from MEALS_PHOTO_ENCRYPTION_PREVIOUS_KEYS?",
                            metadata: ["photo_id": .string(row.photoId.lowercasedString), "encryption_key_id": .string(error.keyId)])
                        batch.unreadable += 1
                        unreadable.append(row.photoId)
                    }
                }
                return (due.count, unreadable, batch)
            }
            skipping += taken.1
            outcome.sealed += taken.2.sealed
            outcome.thumbnailsMade += taken.2.thumbnailsMade
            outcome.thumbnailsUnavailable += taken.2.thumbnailsUnavailable
            outcome.unreadable += taken.2.unreadable
            if taken.0 < batchSize { break }
        }
        if outcome != Outcome() {
            logger.info(
                "photo upkeep done",
                metadata: [
                    "sealed": "\(outcome.sealed)", "thumbnails_made": "\(outcome.thumbnailsMade)",
                    "thumbnails_unavailable": "\(outcome.thumbnailsUnavailable)", "unreadable": "\(outcome.unreadable)",
                ])
        }
        return outcome
    }

    private func bringUpToDate(
        _ row: PhotoRepository.Row, cipher: SealingCipher, outcome: inout Outcome, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let plain = Array(try vault.open(row).bytes.readableBytesView)
        if cipher.needsResealing(keyId: row.keyId) {
            try await rows.replaceParts(try vault.sealParts(plain, photoId: row.photoId), photoId: row.photoId, on: connection, logger: logger)
            outcome.sealed += 1
        }
        switch row.thumbnail {
        case .pending:
            if let jpeg = await vault.thumbnailer.thumbnail(of: plain, logger: logger) {
                let sealed = try vault.sealThumbnail(jpeg, photoId: row.photoId)
                try await rows.saveThumbnail(sealed, keyId: cipher.keys.currentId, photoId: row.photoId, on: connection, logger: logger)
                outcome.thumbnailsMade += 1
            } else {
                try await rows.markThumbnailUnavailable(photoId: row.photoId, on: connection, logger: logger)
                outcome.thumbnailsUnavailable += 1
            }
        case .ready:
            if let (keyId, sealed) = try await rows.thumbnail(photoId: row.photoId, on: connection, logger: logger),
                cipher.needsResealing(keyId: keyId)
            {
                let jpeg = try vault.openThumbnail(sealed, keyId: keyId, photoId: row.photoId)
                try await rows.saveThumbnail(
                    try vault.sealThumbnail(jpeg, photoId: row.photoId), keyId: cipher.keys.currentId, photoId: row.photoId, on: connection,
                    logger: logger)
            }
        case .unavailable: break
        }
    }
}
