import Foundation
import NIOPosix
import ServiceDefaults
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A command-line tool (an image converter, a rasteriser) run as a child process and bounded in every way a hostile
/// input could abuse: time (killed at `limits.timeout`), output size and memory (`prlimit --fsize --as --cpu`, when
/// util-linux's `prlimit` is installed), and number (runs on `limits.concurrency` threads of its own, at most
/// `limits.queueLimit` admitted, the rest refused at once). Each run gets a private temporary folder, removed
/// afterwards, and a bare environment: the service's own (database URL, secrets) is no business of the tool. Only
/// the tool's own process is killed at the time limit: the tools run here (vipsthumbnail, rsvg-convert) start no
/// others, and a shell script that does is not answered until its children end.
/// Owns its threads: add it to the service group, which shuts them down.
public final class BoundedChildProcess: Service {
    public let limits: ChildProcessLimits
    /// The tool found at start; nil when it is not installed.
    public let executable: URL?
    /// util-linux's `prlimit`, which applies the memory, file-size and CPU limits; nil when absent.
    public let limiter: URL?
    private let pool: NIOThreadPool
    private let admitted = Atomic<Int>(0)

    /// A runner for `limits`; the pool starts here, not in `run()`: a request may arrive before the service group has
    /// run this service, and a pool that is not started refuses work. `run()` still owns its shutdown.
    public init(limits: ChildProcessLimits) {
        self.limits = limits
        self.executable = Self.locate(limits.executable)
        self.limiter = Self.locate("prlimit")
        self.pool = NIOThreadPool(numberOfThreads: limits.concurrency)
        pool.start()
    }

    public func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }

    /// Runs admitted now (running or waiting for a thread).
    public var admittedRuns: Int { admitted.load(ordering: .relaxed) }

    /// Runs the tool once on `input` and answers its output, or throws a `ChildProcessFailure`. The input is written to
    /// `inputName` and the output read from `outputName` in the run's folder; `arguments` gets both paths (the tool's
    /// arguments, without the tool). `accepts` checks the output (its size is already within the limit).
    public func output(
        of input: [UInt8], inputName: String, inputVia: ChildProcessStream, outputName: String, outputVia: ChildProcessStream,
        arguments: @escaping @Sendable (_ input: String, _ output: String) -> [String], accepts: @escaping @Sendable ([UInt8]) -> Bool
    ) async throws(ChildProcessFailure) -> [UInt8] {
        guard let executable else { throw .missing }
        guard admitted.add(1, ordering: .relaxed).newValue <= limits.queueLimit else {
            admitted.subtract(1, ordering: .relaxed)
            throw .busy
        }
        defer { admitted.subtract(1, ordering: .relaxed) }
        let run = Run(
            executable: executable, limiter: limiter, limits: limits, input: input, inputName: inputName, inputVia: inputVia,
            outputName: outputName, outputVia: outputVia, arguments: arguments, accepts: accepts)
        let result: Result<[UInt8], ChildProcessFailure>
        do {
            result = try await pool.runIfActive { run.result() }
        } catch {
            throw .failed(status: -1)  // the pool is shutting down
        }
        return try result.get()
    }

    /// One run, carried to a pool thread.
    private struct Run: Sendable {
        let executable: URL
        let limiter: URL?
        let limits: ChildProcessLimits
        let input: [UInt8]
        let inputName: String
        let inputVia: ChildProcessStream
        let outputName: String
        let outputVia: ChildProcessStream
        let arguments: @Sendable (String, String) -> [String]
        let accepts: @Sendable ([UInt8]) -> Bool

        func result() -> Result<[UInt8], ChildProcessFailure> {
            Result { try execute() }.mapError { $0 as? ChildProcessFailure ?? .failed(status: -1) }
        }

        /// Runs the process on the calling (pool) thread and waits for it, killing it when it outlives the timeout.
        private func execute() throws -> [UInt8] {
            let files = FileManager.default
            let folder = files.temporaryDirectory.appendingPathComponent("bounded-run-\(UUID().uuidString)")
            try files.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            defer { try? files.removeItem(at: folder) }
            let inputFile = folder.appendingPathComponent(inputName)
            let outputFile = folder.appendingPathComponent(outputName)
            // Written from the caller's bytes as they are: a `Data` copy would hold a photo twice in the service's memory.
            guard files.createFile(atPath: inputFile.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                files.createFile(atPath: outputFile.path, contents: nil)
            else { throw ChildProcessFailure.failed(status: -1) }
            let inputWriter = try FileHandle(forWritingTo: inputFile)
            defer { try? inputWriter.close() }
            if !input.isEmpty { try inputWriter.write(contentsOf: input) }
            let standardInput = try FileHandle(forReadingFrom: inputFile)
            defer { try? standardInput.close() }
            let standardOutput = try FileHandle(forWritingTo: outputFile)
            defer { try? standardOutput.close() }

            let process = Process()
            let toolArguments = arguments(inputFile.path, outputFile.path)
            if let limiter {
                let cpuSeconds = Int(limits.timeout.timeInterval.rounded(.up)) + 1
                process.executableURL = limiter
                process.arguments =
                    ["--as=\(limits.memoryLimitBytes)", "--fsize=\(limits.maxOutputBytes)", "--cpu=\(cpuSeconds)", "--", executable.path]
                    + toolArguments
            } else {
                process.executableURL = executable
                process.arguments = toolArguments
            }
            process.environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": folder.path]
            process.currentDirectoryURL = folder
            process.standardInput = inputVia == .standardStream ? standardInput : FileHandle.nullDevice
            process.standardOutput = outputVia == .standardStream ? standardOutput : FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            do {
                try process.run()
            } catch {
                throw ChildProcessFailure.missing
            }
            if exited.wait(timeout: .now() + limits.timeout.timeInterval) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
                throw ChildProcessFailure.timedOut
            }
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                throw ChildProcessFailure.failed(status: process.terminationStatus)
            }
            let size = (try? files.attributesOfItem(atPath: outputFile.path)[.size] as? Int) ?? nil
            guard let size, size > 0, size <= limits.maxOutputBytes else { throw ChildProcessFailure.badOutput }
            let output = [UInt8](try Data(contentsOf: outputFile))
            guard accepts(output) else { throw ChildProcessFailure.badOutput }
            return output
        }
    }

    /// `name` itself when it is a path to an executable file, else the first executable of that name on `PATH`.
    public static func locate(_ name: String) -> URL? {
        let files = FileManager.default
        if name.contains("/") { return files.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where files.isExecutableFile(atPath: "\(folder)/\(name)") {
            return URL(fileURLWithPath: "\(folder)/\(name)")
        }
        return nil
    }
}
