import Foundation
import Testing

/// Real photos for the thumbnail tests, made with libvips' own `vips` command (libvips-tools, which deploy/setup.sh
/// installs with the thumbnailer): a noisy JPEG of a given size, optionally with an EXIF orientation.
enum TestImages {
    /// A `width` x `height` JPEG; with `orientation` (1 to 8), an EXIF segment saying how it must be turned to stand upright.
    static func jpeg(width: Int, height: Int, orientation: UInt8? = nil) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("test-image-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["gaussnoise", file.path, "\(width)", "\(height)"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "vips gaussnoise failed; run deploy/setup.sh photo_thumbnailer")
        let plain = [UInt8](try Data(contentsOf: file))
        guard let orientation else { return plain }
        // A big-endian TIFF header, one IFD entry (0x0112 Orientation, SHORT, 1 value), no next IFD.
        let tiff: [UInt8] = Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return Array(plain[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(plain[2...])
    }

    /// Bytes that begin like a JPEG but are not one: accepted as a photo, unreadable to an image library.
    static let brokenJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("not really a picture".utf8) + [UInt8](repeating: 9, count: 400)
}
