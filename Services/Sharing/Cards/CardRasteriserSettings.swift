import BackendKit
import Configuration
import Foundation
import ServiceDefaults

/// Bounds of the PNG share-card renders, read once at start. Every render is an `rsvg-convert` child process.
struct CardRasteriserSettings: Sendable {
    /// The rasteriser: an absolute path or a name looked up on `PATH` (`SHARING_CARD_RASTERISER`, default
    /// `rsvg-convert`, Debian's librsvg2-bin). When it cannot be found, `card.png` answers 503 and the rest works.
    var executable: String
    /// Longest a render may take before its process is killed (`SHARING_CARD_RENDER_TIMEOUT_SECONDS`, default 10).
    var timeout: Duration
    /// Largest PNG kept; a render writing more is killed (`SHARING_CARD_MAX_PNG_BYTES`, default 4 MiB).
    var maxOutputBytes: Int
    /// Address space of one render process, through `prlimit` (`SHARING_CARD_MEMORY_LIMIT_BYTES`, default 512 MiB).
    var memoryLimitBytes: Int
    /// Renders running at once (`SHARING_CARD_RENDER_THREADS`, default 2).
    var concurrency: Int
    /// Renders allowed to run or wait at once; beyond that a request answers 503 at once
    /// (`SHARING_CARD_RENDER_QUEUE_LIMIT`, default 8).
    var queueLimit: Int

    init(
        executable: String = "rsvg-convert", timeout: Duration = .seconds(10), maxOutputBytes: Int = 4 * 1024 * 1024,
        memoryLimitBytes: Int = 512 * 1024 * 1024, concurrency: Int = 2, queueLimit: Int = 8
    ) {
        self.executable = executable
        self.timeout = timeout
        self.maxOutputBytes = maxOutputBytes
        self.memoryLimitBytes = memoryLimitBytes
        self.concurrency = concurrency
        self.queueLimit = queueLimit
    }

    init(config: ConfigReader) throws {
        self.init(
            executable: config.string(forKey: "sharing.card.rasteriser", default: "rsvg-convert"),
            timeout: .seconds(config.double(forKey: "sharing.card.render.timeout.seconds", default: 10)),
            maxOutputBytes: config.int(forKey: "sharing.card.max.png.bytes", default: 4 * 1024 * 1024),
            memoryLimitBytes: config.int(forKey: "sharing.card.memory.limit.bytes", default: 512 * 1024 * 1024),
            concurrency: config.int(forKey: "sharing.card.render.threads", default: 2),
            queueLimit: config.int(forKey: "sharing.card.render.queue.limit", default: 8))
        guard timeout > .zero else {
            throw ConfigurationError.invalid("SHARING_CARD_RENDER_TIMEOUT_SECONDS", reason: "must be above 0")
        }
        guard maxOutputBytes > 0, memoryLimitBytes >= 64 * 1024 * 1024 else {
            throw ConfigurationError.invalid("SHARING_CARD_MAX_PNG_BYTES", reason: "limits must be positive (memory at least 64 MiB)")
        }
        guard concurrency >= 1, queueLimit >= concurrency else {
            throw ConfigurationError.invalid("SHARING_CARD_RENDER_QUEUE_LIMIT", reason: "needs at least one thread and a queue limit not below it")
        }
    }
}

extension CardRasteriserSettings {
    /// The bounds of each render process.
    var limits: ChildProcessLimits {
        ChildProcessLimits(
            executable: executable, timeout: timeout, maxOutputBytes: maxOutputBytes, memoryLimitBytes: memoryLimitBytes,
            concurrency: concurrency, queueLimit: queueLimit)
    }
}
