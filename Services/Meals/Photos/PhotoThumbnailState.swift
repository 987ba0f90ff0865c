/// What became of a photo's thumbnail: made (`ready`), impossible because the image library cannot read the photo
/// (`unavailable`; the photo is stored all the same), or not tried yet (`pending`: a photo stored before thumbnails,
/// which the photo upkeep job gives one).
enum PhotoThumbnailState: String, Sendable, Codable, Equatable {
    case ready, unavailable, pending
}
