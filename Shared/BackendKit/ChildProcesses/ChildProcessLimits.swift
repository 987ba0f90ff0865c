import Foundation

/// Bounds of a `BoundedChildProcess`: which tool, and how long, how large, how hungry and how many of it at once.
public struct ChildProcessLimits: Sendable {
    /// The tool: an absolute path or a name looked up on `PATH`.
    public var executable: String
    /// Longest one run may take before its process is killed.
    public var timeout: Duration
    /// Largest output kept; a process writing more is stopped (`prlimit --fsize`) or its output refused.
    public var maxOutputBytes: Int
    /// Address space of one process, through `prlimit --as`.
    public var memoryLimitBytes: Int
    /// Runs at once, each on a thread of its own.
    public var concurrency: Int
    /// Runs allowed to run or wait at once; beyond that a run is refused at once (`ChildProcessFailure.busy`).
    public var queueLimit: Int

    /// Limits as given.
    public init(executable: String, timeout: Duration, maxOutputBytes: Int, memoryLimitBytes: Int, concurrency: Int, queueLimit: Int) {
        self.executable = executable
        self.timeout = timeout
        self.maxOutputBytes = maxOutputBytes
        self.memoryLimitBytes = memoryLimitBytes
        self.concurrency = concurrency
        self.queueLimit = queueLimit
    }
}
