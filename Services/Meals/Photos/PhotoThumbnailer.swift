import BackendKit
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Makes a photo's thumbnail with `vipsthumbnail` (libvips) run as a `BoundedChildProcess` (time, output size,
/// memory and number bounded): a JPEG of at most `settings.size` pixels on its long side, turned upright by its EXIF
/// orientation, with EXIF and other metadata stripped. Any failure answers nil: a photo is stored without its
/// thumbnail, and its answers say so.
/// Metric: `meals_photo_thumbnails_total{outcome}` (`made`, `timed_out`, `failed`, `bad_output`, `busy`, `missing`).
final class PhotoThumbnailer: Service {
    let settings: PhotoThumbnailerSettings
    private let process: BoundedChildProcess

    /// The thumbnailer found at start; nil when it is not installed.
    var executable: URL? { process.executable }

    /// A thumbnailer for `settings`; says at start (through `logger`) when `vipsthumbnail` or `prlimit` is missing.
    init(settings: PhotoThumbnailerSettings, logger: Logger) {
        self.settings = settings
        self.process = BoundedChildProcess(limits: settings.limits)
        if process.executable == nil {
            logger.warning(
                "photo thumbnailer not found; photos are stored without thumbnails until it is installed (deploy/setup.sh)",
                metadata: ["thumbnailer": .string(settings.executable)])
        }
        if process.limiter == nil {
            logger.warning("prlimit not found; thumbnails are made without memory and file-size limits (time limit still applies)")
        }
    }

    func run() async throws {
        try await process.run()
    }

    /// The JPEG thumbnail of `photo`; nil when it cannot be made (unreadable image, no thumbnailer, too busy, too slow).
    func thumbnail(of photo: [UInt8], logger: Logger) async -> [UInt8]? {
        let size = settings.size
        do {
            // Autorotation by EXIF orientation is vipsthumbnail's default; `strip` drops EXIF, XMP and ICC metadata.
            let jpeg = try await process.output(
                of: photo, inputName: "photo", inputVia: .namedFile, outputName: "thumbnail.jpg", outputVia: .namedFile,
                arguments: { input, output in [input, "--size=\(size)x\(size)", "--vips-concurrency=1", "-o", "\(output)[Q=80,strip]"] },
                accepts: { jpeg in JPEGSize(of: jpeg).map { max($0.width, $0.height) <= size } ?? false })
            return counted(jpeg, "made")
        } catch {
            let outcome =
                switch error {
                case .missing: "missing"
                case .busy: "busy"
                case .timedOut: "timed_out"
                case .failed: "failed"
                case .badOutput: "bad_output"
                }
            if error != .missing && error != .busy {
                logger.info("photo thumbnail not made", metadata: ["reason": .string(outcome)])
            }
            return counted(nil, outcome)
        }
    }

    private func counted(_ jpeg: [UInt8]?, _ outcome: String) -> [UInt8]? {
        Counter(label: "meals_photo_thumbnails_total", dimensions: [("outcome", outcome)]).increment()
        return jpeg
    }
}
