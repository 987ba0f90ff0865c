import Foundation

/// A photo ready to store: its parts sealed under key `keyId`, and its sealed thumbnail or why it has none.
struct SealedPhoto: Sendable {
    var photoId: UUID
    var mediaType: String
    var keyId: String
    /// Sealed parts of at most `PhotoRepository.partBytes` plain bytes each, in order.
    var parts: [[UInt8]]
    /// The sealed JPEG thumbnail; nil when none could be made.
    var thumbnail: [UInt8]?
    /// The plain size of the photo.
    var byteCount: Int

    var thumbnailState: PhotoThumbnailState { thumbnail == nil ? .unavailable : .ready }
}
