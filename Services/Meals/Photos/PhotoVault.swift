import BackendKit
import Foundation
import Logging
import NIOCore
import ServiceDefaults
import WireJSON

/// Meal photos at rest: seals each part of a photo and its thumbnail with AES-256-GCM (`SealingCipher`, keys from
/// `MEALS_PHOTO_ENCRYPTION_KEY`) bound to the photo's id and the part's number, and opens them with whichever key
/// sealed them. Without a key (`cipher` nil) photos cannot be stored or read: 503 `photos_not_configured`.
struct PhotoVault: Sendable {
    let cipher: SealingCipher?
    let thumbnailer: PhotoThumbnailer

    /// `upload` sealed for storage as photo `photoId`, with its thumbnail when one can be made.
    func prepare(_ upload: PhotoUpload, photoId: UUID, logger: Logger) async throws -> SealedPhoto {
        let cipher = try requireCipher()
        let thumbnail = await thumbnailer.thumbnail(of: upload.bytes, logger: logger)
        return SealedPhoto(
            photoId: photoId, mediaType: upload.format.mediaType, parts: try sealParts(upload.bytes, photoId: photoId),
            thumbnail: try thumbnail.map { try cipher.seal($0, context: Self.thumbnailContext(photoId)).sealed })
    }

    /// `bytes` as parts of `photoId`, each sealed under the current key when it is stored.
    func sealParts(_ bytes: [UInt8], photoId: UUID) throws -> SealedPhotoParts {
        SealedPhotoParts(plain: bytes, cipher: try requireCipher()) { part in Self.partContext(photoId, part) }
    }

    /// The plain bytes of a stored photo: its sealed parts opened, or (stored before sealing) its plain bytes as they are.
    func open(_ row: PhotoRepository.Row) throws -> StoredPhoto {
        guard let keyId = row.keyId else {
            var bytes = ByteBuffer()
            for part in row.parts { bytes.writeImmutableBuffer(part) }
            return StoredPhoto(mediaType: row.mediaType, bytes: bytes)
        }
        let cipher = try requireCipher()
        var bytes = ByteBuffer()
        for (number, part) in row.parts.enumerated() {
            bytes.writeBytes(try cipher.open(part.readableBytesView, keyId: keyId, context: Self.partContext(row.photoId, number)))
        }
        return StoredPhoto(mediaType: row.mediaType, bytes: bytes)
    }

    /// The plain JPEG of a stored thumbnail.
    func openThumbnail(_ sealed: ByteBuffer, keyId: String, photoId: UUID) throws -> [UInt8] {
        try requireCipher().open(sealed.readableBytesView, keyId: keyId, context: Self.thumbnailContext(photoId))
    }

    /// `jpeg` sealed as the thumbnail of `photoId` under the current key.
    func sealThumbnail(_ jpeg: [UInt8], photoId: UUID) throws -> [UInt8] {
        try requireCipher().seal(jpeg, context: Self.thumbnailContext(photoId)).sealed
    }

    /// The cipher; 503 `photos_not_configured` without a photo encryption key.
    func requireCipher() throws -> SealingCipher {
        guard let cipher else {
            throw APIError(
                .serviceUnavailable, code: "photos_not_configured",
                message: "This server cannot store or show photos (no photo encryption key is set up).")
        }
        return cipher
    }

    private static func partContext(_ photoId: UUID, _ part: Int) -> String {
        "nutritionai.meal-photo.\(photoId.lowercasedString).\(part)"
    }

    private static func thumbnailContext(_ photoId: UUID) -> String {
        "nutritionai.meal-photo-thumbnail.\(photoId.lowercasedString)"
    }
}
