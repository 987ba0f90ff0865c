import Configuration
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HummingbirdBcrypt
import Logging
import Metrics
import NIOPosix
import ServiceDefaults
import ServiceLifecycle
import Synchronization

/// bcrypt on its own small thread pool, off the request threads and the cooperative pool.
/// Passwords are pre-hashed (SHA-256, base64: 44 ASCII bytes) because bcrypt reads only 72 bytes and stops at
/// a zero byte; so long passwords count in full and are never silently truncated. At most `queueLimit` hashes
/// wait at once; beyond that callers get 503 with `Retry-After` instead of an ever-growing queue.
/// Metrics: `auth_bcrypt_queue_depth` (hashes waiting for a thread) and `auth_bcrypt_refusals_total` (503 `busy`).
final class PasswordHasher: Service {
    /// Cost and pool bounds.
    struct Settings: Sendable {
        /// bcrypt cost, 10 or more (`AUTH_BCRYPT_COST`, default 10: about 63 ms per hash on this CPU).
        var cost: UInt8
        /// Threads computing hashes (`AUTH_HASHING_THREADS`, default: the number of cores).
        var threads: Int
        /// Hashes allowed to wait or run at once (`AUTH_HASHING_QUEUE_LIMIT`, default 64).
        var queueLimit: Int

        init(cost: UInt8 = 10, threads: Int = ProcessInfo.processInfo.activeProcessorCount, queueLimit: Int = 64) {
            self.cost = cost
            self.threads = threads
            self.queueLimit = queueLimit
        }

        init(config: ConfigReader) throws {
            let cost = config.int(forKey: "auth.bcrypt.cost", default: 10)
            guard (10...16).contains(cost) else { throw ConfigurationError.invalid("AUTH_BCRYPT_COST", reason: "must be 10 to 16") }
            self.init(
                cost: UInt8(cost),
                threads: max(1, config.int(forKey: "auth.hashing.threads", default: ProcessInfo.processInfo.activeProcessorCount)),
                queueLimit: max(1, config.int(forKey: "auth.hashing.queue.limit", default: 64)))
        }
    }

    let settings: Settings
    private let pool: NIOThreadPool
    private let inFlight = Atomic<Int>(0)
    /// Hashes admitted but not yet on a thread. A lock rather than an atomic: the gauge is set under it, so two
    /// threads can never leave it showing an older count than the last.
    private let waiting = Mutex<Int>(0)
    private let queueDepth: Gauge
    private let refusals: Counter
    /// A hash of a random password at the configured cost, verified against when the email is unknown so that
    /// unknown and known addresses take the same time.
    private let decoyHash: String

    /// A hasher for `settings`; its metrics go to `metrics` (tests pass their own).
    init(settings: Settings, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.settings = settings
        self.pool = NIOThreadPool(numberOfThreads: settings.threads)
        self.queueDepth = Gauge(label: "auth_bcrypt_queue_depth", factory: metrics)
        self.refusals = Counter(label: "auth_bcrypt_refusals_total", factory: metrics)
        self.decoyHash = Bcrypt.hash(Self.prehash(UUID().uuidString), cost: settings.cost)
        queueDepth.record(0)
    }

    func run() async throws {
        pool.start()
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }

    /// The bcrypt hash of `password` (pre-hashed) at the configured cost.
    func hash(_ password: String) async throws -> String {
        let cost = settings.cost
        return try await onPool { Bcrypt.hash(Self.prehash(password), cost: cost) }
    }

    /// Whether `password` matches `hash`; with a nil hash, does the same work and answers false.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let target = hash ?? decoyHash
        let matches = try await onPool { Bcrypt.verify(Self.prehash(password), hash: target) }
        return matches && hash != nil
    }

    /// Runs `work` on the hashing threads, or refuses at once with 503 `busy` when `queueLimit` jobs are already in.
    func onPool<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async throws -> Result {
        guard inFlight.add(1, ordering: .relaxed).newValue <= settings.queueLimit else {
            inFlight.subtract(1, ordering: .relaxed)
            refusals.increment()
            throw APIError(
                .serviceUnavailable, code: "busy", message: "Too many sign-ins at once; try again in a moment.",
                headers: [.retryAfter: "1"])
        }
        defer { inFlight.subtract(1, ordering: .relaxed) }
        changeWaiting(by: 1)
        do {
            return try await pool.runIfActive {
                self.changeWaiting(by: -1)
                Self.yieldToRequests()
                return work()
            }
        } catch {
            changeWaiting(by: -1)  // the pool refused the job without running it (it is shutting down)
            throw error
        }
    }

    private func changeWaiting(by change: Int) {
        waiting.withLock { count in
            count += change
            queueDepth.record(count)
        }
    }

    /// Lowers the calling pool thread's scheduling priority (Linux: nice 10 for this thread only), so that under a
    /// login storm the CPU goes first to serving other requests and bcrypt takes what is left.
    private static func yieldToRequests() {
        #if os(Linux)
        // On Linux the nice value is per thread, and `who == 0` names the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }

    /// SHA-256 of the UTF-8 password, base64: fixed length, no zero bytes, every input byte counts.
    static func prehash(_ password: String) -> String {
        Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}
