import Foundation

/// One of the stack's executables, started as `deploy/stack` starts it: its own environment, an empty signal mask and
/// default signal dispositions (a test runner may block SIGTERM, and a child inherits that), and its output appended
/// to a log file. For tests of the process itself: the ports it listens on, its exit at SIGTERM.
final class SpawnedProcess: Sendable {
    /// How a process ended, or that it had not.
    enum Exit: Equatable, CustomStringConvertible {
        case status(Int32)
        case signal(Int32)
        case stillRunning

        var description: String {
            switch self {
            case .status(let code): "exit status \(code)"
            case .signal(let signal): "killed by signal \(signal)"
            case .stillRunning: "still running"
            }
        }
    }

    let log: URL
    private let pid: pid_t

    /// Starts `executable` with only `environment` (and `PATH`), its output going to `log`.
    init(_ executable: URL, environment: [String: String], log: URL) throws {
        self.log = log
        FileManager.default.createFile(atPath: log.path, contents: nil)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let variables = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { own, _ in own }
        let argv = [strdup(executable.path)] + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnFailed(executable: executable.path, error: spawned) }
        self.pid = pid
    }

    /// What the process wrote so far.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The ports of its public and admin servers, read from their "listening" lines (the admin one carries
    /// `"server":"admin"`); nil when both are not there within `timeout` or the process ended.
    func listeningPorts(within timeout: Duration) async throws -> (public: Int, admin: Int)? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var publicPort: Int?
            var adminPort: Int?
            for line in output.split(separator: "\n") where line.contains("listening on") {
                guard let port = line.firstMatch(of: /listening on [^"]*:(\d+)/).flatMap({ Int($0.1) }) else { continue }
                if line.contains(#""server":"admin""#) { adminPort = port } else { publicPort = port }
            }
            if let publicPort, let adminPort { return (publicPort, adminPort) }
            if await ending(within: .zero) != .stillRunning { return nil }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Sends SIGTERM and waits up to `limit` for the process to end; returns how it ended and after how long. One still
    /// running then is killed (SIGKILL), and reported as `stillRunning`.
    func terminate(waitingAtMost limit: Duration) async -> (exit: Exit, after: Duration) {
        let sent = ContinuousClock.now
        kill(pid, SIGTERM)
        let ended = await ending(within: limit)
        let after = ContinuousClock.now - sent
        if ended == .stillRunning {
            kill(pid, SIGKILL)
            _ = await ending(within: .seconds(10))
        }
        return (ended, after)
    }

    /// How the process ended, polling for up to `limit`.
    private func ending(within limit: Duration) async -> Exit {
        let deadline = ContinuousClock.now + limit
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return signal == 0 ? .status((status >> 8) & 0xff) : .signal(signal)
            }
            if reaped == -1, errno != EINTR { return .status(-1) }
            guard ContinuousClock.now < deadline else { return .stillRunning }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The executable could not be started.
    struct SpawnFailed: Error {
        var executable: String
        var error: Int32
    }
}
