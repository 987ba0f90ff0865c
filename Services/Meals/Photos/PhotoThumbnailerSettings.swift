import BackendKit
import Configuration
import Foundation
import ServiceDefaults

/// Bounds of the photo thumbnails, read once at start. Every thumbnail is a `vipsthumbnail` child process.
struct PhotoThumbnailerSettings: Sendable {
    /// The thumbnailer: an absolute path or a name looked up on `PATH` (`MEALS_THUMBNAILER`, default `vipsthumbnail`,
    /// Debian's libvips-tools). When it cannot be found, photos are stored without thumbnails.
    var executable: String
    /// The long side of a thumbnail in pixels (`MEALS_THUMBNAIL_SIZE`, 64 to 1024, default 320).
    var size: Int
    /// Longest a thumbnail may take before its process is killed (`MEALS_THUMBNAIL_TIMEOUT_SECONDS`, default 10).
    var timeout: Duration
    /// Largest thumbnail kept; a process writing more is stopped (`MEALS_THUMBNAIL_MAX_BYTES`, default 512 KiB).
    var maxOutputBytes: Int
    /// Address space of one thumbnail process, through `prlimit` (`MEALS_THUMBNAIL_MEMORY_LIMIT_BYTES`, default 512 MiB).
    var memoryLimitBytes: Int
    /// Thumbnails made at once (`MEALS_THUMBNAIL_THREADS`, default 2).
    var concurrency: Int
    /// Thumbnails allowed to run or wait at once; beyond that a photo is stored with its thumbnail left to the upkeep
    /// job (`MEALS_THUMBNAIL_QUEUE_LIMIT`, default 16).
    var queueLimit: Int

    init(
        executable: String = "vipsthumbnail", size: Int = 320, timeout: Duration = .seconds(10), maxOutputBytes: Int = 512 * 1024,
        memoryLimitBytes: Int = 512 * 1024 * 1024, concurrency: Int = 2, queueLimit: Int = 16
    ) {
        self.executable = executable
        self.size = size
        self.timeout = timeout
        self.maxOutputBytes = maxOutputBytes
        self.memoryLimitBytes = memoryLimitBytes
        self.concurrency = concurrency
        self.queueLimit = queueLimit
    }

    init(config: ConfigReader) throws {
        self.init(
            executable: config.string(forKey: "meals.thumbnailer", default: "vipsthumbnail"),
            size: config.int(forKey: "meals.thumbnail.size", default: 320),
            timeout: .seconds(config.double(forKey: "meals.thumbnail.timeout.seconds", default: 10)),
            maxOutputBytes: config.int(forKey: "meals.thumbnail.max.bytes", default: 512 * 1024),
            memoryLimitBytes: config.int(forKey: "meals.thumbnail.memory.limit.bytes", default: 512 * 1024 * 1024),
            concurrency: config.int(forKey: "meals.thumbnail.threads", default: 2),
            queueLimit: config.int(forKey: "meals.thumbnail.queue.limit", default: 16))
        guard (64...1024).contains(size) else { throw ConfigurationError.invalid("MEALS_THUMBNAIL_SIZE", reason: "must be between 64 and 1024") }
        guard timeout > .zero else { throw ConfigurationError.invalid("MEALS_THUMBNAIL_TIMEOUT_SECONDS", reason: "must be above 0") }
        guard maxOutputBytes > 0, memoryLimitBytes >= 128 * 1024 * 1024 else {
            throw ConfigurationError.invalid("MEALS_THUMBNAIL_MAX_BYTES", reason: "limits must be positive (memory at least 128 MiB)")
        }
        guard concurrency >= 1, queueLimit >= concurrency else {
            throw ConfigurationError.invalid("MEALS_THUMBNAIL_QUEUE_LIMIT", reason: "needs at least one thread and a queue limit not below it")
        }
    }
}

extension PhotoThumbnailerSettings {
    /// The bounds of each thumbnail process.
    var limits: ChildProcessLimits {
        ChildProcessLimits(
            executable: executable, timeout: timeout, maxOutputBytes: maxOutputBytes, memoryLimitBytes: memoryLimitBytes,
            concurrency: concurrency, queueLimit: queueLimit)
    }
}
