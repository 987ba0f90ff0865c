import NIOCore

/// A meal photo as stored: its media type (from the bytes' signature at upload) and its bytes.
struct StoredPhoto: Sendable {
    var mediaType: String
    var bytes: ByteBuffer
}
