import Foundation
import Synchronization

/// A program a test starts with Foundation's `Process` (found on `PATH`), its output going to a log file. Its exit is
/// awaited through the termination handler: `waitUntilExit` can hang under Swift concurrency.
final class ChildProcess: Sendable {
    /// Where the program's standard output and error go.
    let log: URL
    private let process: Process
    private let exit = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    /// Starts `program` with `arguments`, adding `environment` to the test's own; its standard input is the file
    /// `input` (none when nil).
    init(_ program: String, _ arguments: [String], environment: [String: String] = [:], input: URL? = nil, log: URL) throws {
        self.log = log
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        process.terminationHandler = { [weak self] process in
            self?.finished(with: process.terminationStatus)
            try? output.close()
        }
        try process.run()
    }

    private func finished(with status: Int32) {
        let waiters = exit.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    /// Runs `program` to its end; throws with its output if it fails.
    static func run(_ program: String, _ arguments: [String], log: URL) async throws {
        let child = try ChildProcess(program, arguments, log: log)
        let status = await child.exitStatus()
        guard status == 0 else { throw Failure(program: program, status: status, output: child.output) }
    }

    /// Whether the program has ended.
    var hasExited: Bool { exit.withLock { $0.status != nil } }

    /// What the program wrote so far.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The program's exit status, once it has ended.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exit.withLock { state -> Int32? in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// A program a test needed ended with a failure.
    struct Failure: Error, CustomStringConvertible {
        var program: String
        var status: Int32
        var output: String
        var description: String { "\(program) exited with \(status):\n\(output)" }
    }

    /// Sends SIGTERM, then SIGKILL if the program is still there after 5 seconds (it inherits the test runner's
    /// signal mask, which may block SIGTERM), and waits for it to end.
    func stop() async {
        if !hasExited { process.terminate() }
        let deadline = ContinuousClock.now + .seconds(5)
        while !hasExited, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if !hasExited { kill(process.processIdentifier, SIGKILL) }
        _ = await exitStatus()
    }
}
