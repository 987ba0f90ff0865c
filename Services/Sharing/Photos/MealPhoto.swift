import Crypto
import NIOCore
import ServiceDefaults

/// A meal photo as copied from the meals service.
struct MealPhoto: Sendable {
    var mediaType: String
    var bytes: ByteBuffer
    /// SHA-256 of the bytes, base64url: the photo's ETag.
    var digest: String

    init(mediaType: String, bytes: ByteBuffer, digest: String) {
        self.mediaType = mediaType
        self.bytes = bytes
        self.digest = digest
    }

    init(mediaType: String, bytes: ByteBuffer) {
        self.init(mediaType: mediaType, bytes: bytes, digest: Base64URL.encode(SHA256.hash(data: bytes.readableBytesView)))
    }
}
