import Foundation

/// A photo ready to store: its parts, sealed as they are stored under the current key, and its sealed thumbnail or
/// why it has none.
struct SealedPhoto: Sendable {
    var photoId: UUID
    var mediaType: String
    var parts: SealedPhotoParts
    /// The sealed JPEG thumbnail (under the parts' key); nil when none could be made.
    var thumbnail: [UInt8]?

    /// The id of the key the parts and the thumbnail are sealed under.
    var keyId: String { parts.keyId }
    /// The plain size of the photo.
    var byteCount: Int { parts.plain.count }

    var thumbnailState: PhotoThumbnailState { thumbnail == nil ? .unavailable : .ready }
}
