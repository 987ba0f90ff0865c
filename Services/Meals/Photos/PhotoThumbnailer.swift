import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceDefaults
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Makes a photo's thumbnail with `vipsthumbnail` (libvips) run as a child process: a JPEG of at most `settings.size`
/// pixels on its long side, turned upright by its EXIF orientation, with EXIF and other metadata stripped. Bounded in
/// time (killed at `timeout`), output size and memory (`prlimit --fsize --as --cpu`), and number: thumbnails run on
/// `concurrency` threads of their own and at most `queueLimit` are admitted; the photo and its thumbnail live in a
/// private temporary folder removed afterwards. Any failure answers nil: a photo is stored without its thumbnail.
/// Metric: `meals_photo_thumbnails_total{outcome}` (`made`, `timed_out`, `failed`, `bad_output`, `busy`, `missing`).
final class PhotoThumbnailer: Service {
    let settings: PhotoThumbnailerSettings
    /// The thumbnailer found at start; nil when it is not installed.
    let executable: URL?
    private let limiter: URL?
    private let pool: NIOThreadPool
    private let admitted = Atomic<Int>(0)

    /// A thumbnailer for `settings`; says at start (through `logger`) when `vipsthumbnail` or `prlimit` is missing.
    init(settings: PhotoThumbnailerSettings, logger: Logger) {
        self.settings = settings
        self.executable = Self.locate(settings.executable)
        self.limiter = Self.locate("prlimit")
        self.pool = NIOThreadPool(numberOfThreads: settings.concurrency)
        // Started here, not in `run()`: an upload may arrive before the service group has run this service.
        pool.start()
        if executable == nil {
            logger.warning(
                "photo thumbnailer not found; photos are stored without thumbnails until it is installed (deploy/setup.sh)",
                metadata: ["thumbnailer": .string(settings.executable)])
        }
        if limiter == nil {
            logger.warning("prlimit not found; thumbnails are made without memory and file-size limits (time limit still applies)")
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }

    /// The JPEG thumbnail of `photo`; nil when it cannot be made (unreadable image, no thumbnailer, too busy, too slow).
    func thumbnail(of photo: [UInt8], logger: Logger) async -> [UInt8]? {
        guard let executable else { return counted(nil, "missing") }
        guard admitted.add(1, ordering: .relaxed).newValue <= settings.queueLimit else {
            admitted.subtract(1, ordering: .relaxed)
            return counted(nil, "busy")
        }
        defer { admitted.subtract(1, ordering: .relaxed) }
        let settings = settings
        let limiter = limiter
        let result = try? await pool.runIfActive { () -> Result<[UInt8], Failure> in
            Result { try Self.make(photo, executable: executable, limiter: limiter, settings: settings) }
                .mapError { $0 as? Failure ?? .failed }
        }
        switch result {
        case .success(let jpeg): return counted(jpeg, "made")
        case .failure(let failure):
            logger.info("photo thumbnail not made", metadata: ["reason": .string(failure.rawValue)])
            return counted(nil, failure.rawValue)
        case nil: return counted(nil, "failed")
        }
    }

    private func counted(_ jpeg: [UInt8]?, _ outcome: String) -> [UInt8]? {
        Counter(label: "meals_photo_thumbnails_total", dimensions: [("outcome", outcome)]).increment()
        return jpeg
    }

    /// Why a thumbnail was not made.
    private enum Failure: String, Error {
        case timedOut = "timed_out", failed, badOutput = "bad_output"
    }

    /// Runs one thumbnail on the calling (pool) thread: the photo written to a private temporary folder, the JPEG
    /// written beside it, the process killed when it outlives `settings.timeout`.
    private static func make(_ photo: [UInt8], executable: URL, limiter: URL?, settings: PhotoThumbnailerSettings) throws -> [UInt8] {
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("meal-thumbnail-\(UUID().uuidString)")
        try files.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? files.removeItem(at: folder) }
        let input = folder.appendingPathComponent("photo")
        let output = folder.appendingPathComponent("thumbnail.jpg")
        try Data(photo).write(to: input)

        let process = Process()
        // Autorotation by EXIF orientation is vipsthumbnail's default; `strip` drops EXIF, XMP and ICC metadata.
        let thumbnail = [
            input.path, "--size=\(settings.size)x\(settings.size)", "--vips-concurrency=1", "-o", "\(output.path)[Q=80,strip]",
        ]
        if let limiter {
            let cpuSeconds = Int(settings.timeout.timeInterval.rounded(.up)) + 1
            process.executableURL = limiter
            process.arguments =
                ["--as=\(settings.memoryLimitBytes)", "--fsize=\(settings.maxOutputBytes)", "--cpu=\(cpuSeconds)", "--", executable.path]
                + thumbnail
        } else {
            process.executableURL = executable
            process.arguments = thumbnail
        }
        // Why a bare environment: the service's own (database URL, secrets) is no business of the thumbnailer.
        process.environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": folder.path]
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + settings.timeout.timeInterval) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            throw Failure.timedOut
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else { throw Failure.failed }
        let size = (try? files.attributesOfItem(atPath: output.path)[.size] as? Int) ?? nil
        guard let size, size > 0, size <= settings.maxOutputBytes else { throw Failure.badOutput }
        let jpeg = [UInt8](try Data(contentsOf: output))
        guard let dimensions = JPEGSize(of: jpeg), max(dimensions.width, dimensions.height) <= settings.size else { throw Failure.badOutput }
        return jpeg
    }

    /// `name` itself when it is a path to an executable file, else the first executable of that name on `PATH`.
    private static func locate(_ name: String) -> URL? {
        let files = FileManager.default
        if name.contains("/") { return files.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where files.isExecutableFile(atPath: "\(folder)/\(name)") {
            return URL(fileURLWithPath: "\(folder)/\(name)")
        }
        return nil
    }
}
