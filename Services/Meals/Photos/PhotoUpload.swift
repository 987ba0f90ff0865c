/// A meal photo as received: its bytes (already checked against the size limit) and its detected format.
struct PhotoUpload: Sendable {
    var bytes: [UInt8]
    var format: ImageFormat
}
