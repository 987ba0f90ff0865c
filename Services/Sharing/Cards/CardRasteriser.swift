import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceDefaults
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns a share card's SVG into its 1200x630 PNG with `rsvg-convert` (librsvg) run as a child process, bounded in
/// time (killed at `timeout`), output size and memory (`prlimit --fsize --as --cpu`), and number: renders run on
/// `concurrency` threads of their own and at most `queueLimit` are admitted, the rest are refused at once.
/// The SVG reaches the process on standard input, without a base address, so librsvg can open no file or URL; and
/// an SVG naming anything but its own fragments and inline `data:image/png|jpeg` pictures is refused before it runs.
/// Metric: `sharing_card_renders_total{outcome}` (`rendered`, `timed_out`, `failed`, `bad_output`, `busy`,
/// `missing`, `refused`).
final class CardRasteriser: Service {
    let settings: CardRasteriserSettings
    /// The rasteriser found at start; nil when it is not installed.
    let executable: URL?
    /// util-linux's `prlimit`, which applies the memory, file-size and CPU limits to the render; nil when absent.
    private let limiter: URL?
    private let pool: NIOThreadPool
    private let admitted = Atomic<Int>(0)
    private let metrics: any MetricsFactory

    /// A rasteriser for `settings`; says at start (through `logger`) when `rsvg-convert` or `prlimit` is missing.
    init(settings: CardRasteriserSettings, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.settings = settings
        self.metrics = metrics
        self.executable = Self.locate(settings.executable)
        self.limiter = Self.locate("prlimit")
        self.pool = NIOThreadPool(numberOfThreads: settings.concurrency)
        // Started here, not in `run()`: a request may arrive before the service group has run this service, and a
        // pool that is not started refuses work. `run()` still owns its shutdown.
        pool.start()
        if executable == nil {
            logger.warning(
                "share card rasteriser not found; GET /shared/:token/card.png answers 503 until it is installed (deploy/setup.sh)",
                metadata: ["rasteriser": .string(settings.executable)])
        }
        if limiter == nil {
            logger.warning("prlimit not found; card renders run without memory and file-size limits (time limit still applies)")
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }

    /// Renders running or waiting for a thread now.
    var admittedRenders: Int { admitted.load(ordering: .relaxed) }

    /// The PNG of `svg`, or a `CardRenderFailure`.
    func png(_ svg: String) async throws -> ByteBuffer {
        guard let executable else { throw counted(.rasteriserMissing) }
        guard admitted.add(1, ordering: .relaxed).newValue <= settings.queueLimit else {
            admitted.subtract(1, ordering: .relaxed)
            throw counted(.busy)
        }
        defer { admitted.subtract(1, ordering: .relaxed) }
        let settings = settings
        let limiter = limiter
        let result = try await pool.runIfActive { () -> Result<[UInt8], CardRenderFailure> in
            guard CardSourceCheck.isSelfContained(svg) else { return .failure(.externalReference) }
            return Result { try Self.render(Data(svg.utf8), executable: executable, limiter: limiter, settings: settings) }
                .mapError { $0 as? CardRenderFailure ?? .failed(status: -1) }
        }
        switch result {
        case .success(let bytes):
            Counter(label: "sharing_card_renders_total", dimensions: [("outcome", "rendered")], factory: metrics).increment()
            return ByteBuffer(bytes: bytes)
        case .failure(let failure):
            throw counted(failure)
        }
    }

    private func counted(_ failure: CardRenderFailure) -> CardRenderFailure {
        let outcome =
            switch failure {
            case .rasteriserMissing: "missing"
            case .busy: "busy"
            case .timedOut: "timed_out"
            case .failed: "failed"
            case .badOutput: "bad_output"
            case .externalReference: "refused"
            }
        Counter(label: "sharing_card_renders_total", dimensions: [("outcome", outcome)], factory: metrics).increment()
        return failure
    }

    /// Runs one render on the calling (pool) thread: the SVG in a private temporary folder as standard input, the
    /// PNG written to a file there, the process killed when it outlives `settings.timeout`.
    private static func render(_ svg: Data, executable: URL, limiter: URL?, settings: CardRasteriserSettings) throws -> [UInt8] {
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("share-card-\(UUID().uuidString)")
        try files.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? files.removeItem(at: folder) }
        let input = folder.appendingPathComponent("card.svg")
        let output = folder.appendingPathComponent("card.png")
        try svg.write(to: input)
        guard files.createFile(atPath: output.path, contents: nil) else { throw CardRenderFailure.failed(status: -1) }
        let standardInput = try FileHandle(forReadingFrom: input)
        defer { try? standardInput.close() }
        let standardOutput = try FileHandle(forWritingTo: output)
        defer { try? standardOutput.close() }

        let process = Process()
        let render = ["--format=png", "--width=1200", "--height=630"]
        if let limiter {
            let cpuSeconds = Int(settings.timeout.timeInterval.rounded(.up)) + 1
            process.executableURL = limiter
            process.arguments =
                ["--as=\(settings.memoryLimitBytes)", "--fsize=\(settings.maxOutputBytes)", "--cpu=\(cpuSeconds)", "--", executable.path]
                + render
        } else {
            process.executableURL = executable
            process.arguments = render
        }
        // Why a bare environment: the service's own (database URL, secrets) is no business of the rasteriser.
        process.environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": folder.path]
        process.currentDirectoryURL = folder
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw CardRenderFailure.rasteriserMissing
        }
        if exited.wait(timeout: .now() + settings.timeout.timeInterval) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            throw CardRenderFailure.timedOut
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw CardRenderFailure.failed(status: process.terminationStatus)
        }
        let size = (try? files.attributesOfItem(atPath: output.path)[.size] as? Int) ?? nil
        guard let size, size > 0, size <= settings.maxOutputBytes else { throw CardRenderFailure.badOutput }
        let png = [UInt8](try Data(contentsOf: output))
        guard let size = PNGHeader.dimensions(of: png), size.width == 1200, size.height == 630 else { throw CardRenderFailure.badOutput }
        return png
    }

    /// `name` itself when it is a path to an executable file, else the first executable of that name on `PATH`.
    static func locate(_ name: String) -> URL? {
        let files = FileManager.default
        if name.contains("/") { return files.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where files.isExecutableFile(atPath: "\(folder)/\(name)") {
            return URL(fileURLWithPath: "\(folder)/\(name)")
        }
        return nil
    }
}
