import BackendKit
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// A tool run as a bounded child process: files named in its arguments or connected to its standard streams, its
/// output bounded and checked, its failures told apart. Stand-in shell scripts play the tool.
@Suite("Bounded child process")
struct BoundedChildProcessTests {
    /// An executable shell script with `body` (`$1` and `$2` are its arguments), in a fresh temporary folder.
    static func script(_ body: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("tool").path
        try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    static func limits(_ executable: String, timeout: Duration = .seconds(10), maxOutputBytes: Int = 1024) -> ChildProcessLimits {
        ChildProcessLimits(
            executable: executable, timeout: timeout, maxOutputBytes: maxOutputBytes, memoryLimitBytes: 256 * 1024 * 1024, concurrency: 1,
            queueLimit: 2)
    }

    /// Runs `body` with a started runner of `limits`, then stops it.
    static func withRunner<Result: Sendable>(_ limits: ChildProcessLimits, _ body: (BoundedChildProcess) async throws -> Result) async throws
        -> Result
    {
        let runner = BoundedChildProcess(limits: limits)
        let group = ServiceGroup(services: [runner], logger: Logger(label: "test"))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let result: Result
            do {
                result = try await body(runner)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
    }

    static func run(
        _ runner: BoundedChildProcess, _ input: String, via stream: ChildProcessStream, accepts: @escaping @Sendable ([UInt8]) -> Bool = { _ in true }
    ) async -> Result<String, ChildProcessFailure> {
        do {
            let output = try await runner.output(
                of: Array(input.utf8), inputName: "in.txt", inputVia: stream, outputName: "out.txt", outputVia: stream,
                arguments: { input, output in stream == .namedFile ? [input, output] : [] }, accepts: accepts)
            return .success(String(decoding: output, as: UTF8.self))
        } catch {
            return .failure(error)
        }
    }

    @Test("the tool reads and writes files named in its arguments, or its standard streams")
    func streams() async throws {
        let named = try Self.script(#"tr a-z A-Z < "$1" > "$2""#)
        let namedResult = try await Self.withRunner(Self.limits(named)) { await Self.run($0, "meal photo", via: .namedFile) }
        #expect(namedResult == .success("MEAL PHOTO"))
        let piped = try Self.script("tr a-z A-Z")
        let pipedResult = try await Self.withRunner(Self.limits(piped)) { await Self.run($0, "share card", via: .standardStream) }
        #expect(pipedResult == .success("SHARE CARD"))
    }

    @Test("a missing tool, a failing one, a slow one, too much output and output the caller refuses are each told apart")
    func failures() async throws {
        let missing = try await Self.withRunner(Self.limits("/nonexistent/tool")) { await Self.run($0, "x", via: .standardStream) }
        #expect(missing == .failure(.missing))
        let failing = try await Self.withRunner(Self.limits(try Self.script("exit 3"))) { await Self.run($0, "x", via: .standardStream) }
        #expect(failing == .failure(.failed(status: 3)))
        let slow = try await Self.withRunner(Self.limits(try Self.script("exec sleep 30"), timeout: .milliseconds(500))) {
            await Self.run($0, "x", via: .standardStream)
        }
        #expect(slow == .failure(.timedOut))
        let flood = try await Self.withRunner(Self.limits(try Self.script("head -c 5000 /dev/zero"), maxOutputBytes: 1000)) {
            await Self.run($0, "x", via: .standardStream)
        }
        // Stopped by prlimit's file-size limit (a signal), or, without prlimit, refused for its size.
        switch flood {
        case .failure(.failed), .failure(.badOutput): break
        default: Issue.record("output over the limit was kept: \(flood)")
        }
        let empty = try await Self.withRunner(Self.limits(try Self.script("true"))) { await Self.run($0, "x", via: .standardStream) }
        #expect(empty == .failure(.badOutput))
        let refused = try await Self.withRunner(Self.limits(try Self.script("cat"))) {
            await Self.run($0, "not a picture", via: .standardStream, accepts: { _ in false })
        }
        #expect(refused == .failure(.badOutput))
    }
}
