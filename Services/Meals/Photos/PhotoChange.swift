/// What a photo write does to a meal: attach or replace its photo, or remove it (the meal stays).
enum PhotoChange: Sendable {
    case replace(PhotoUpload)
    case remove

    /// The write as JSON, standing for its body in the write's stamp and in a recorded conflict (never the bytes).
    var summary: String {
        switch self {
        case .replace(let photo): #"{"photo":"replaced","mediaType":"\#(photo.format.mediaType)","bytes":\#(photo.bytes.count)}"#
        case .remove: #"{"photo":"removed"}"#
        }
    }
}
