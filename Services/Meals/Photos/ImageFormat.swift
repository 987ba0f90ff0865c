import Foundation

/// The photo formats the analyser accepts, recognised by their first bytes, never by a file name or a declared type.
enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png, webp, heic

    /// The media type sent to the vision provider and served back with the photo.
    var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        }
    }

    /// The format whose signature `bytes` start with: JPEG `FF D8 FF`, PNG `89 50 4E 47 0D 0A 1A 0A`,
    /// WebP `RIFF....WEBP`, HEIC an ISO-BMFF `ftyp` box of brand heic/heix/heim/heis/hevc/hevx/mif1/msf1.
    init?<Bytes: Collection<UInt8>>(detecting bytes: Bytes) {
        let head = Array(bytes.prefix(16))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(with: Array("RIFF".utf8)), starts(with: Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(with: Array("ftyp".utf8), at: 4), head.count >= 12,
            let brand = String(bytes: head[8..<12], encoding: .ascii), Self.heicBrands.contains(brand)
        {
            self = .heic
        } else {
            return nil
        }
    }

    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
}
