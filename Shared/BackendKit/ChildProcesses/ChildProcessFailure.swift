/// Why a `BoundedChildProcess` run gave no output.
public enum ChildProcessFailure: Error, Equatable, Sendable {
    /// The tool is not installed (or not where the settings say).
    case missing
    /// `queueLimit` runs are already running or waiting.
    case busy
    /// The run outlived its time limit and was killed.
    case timedOut
    /// The tool exited with `status`, or was killed by a signal (such as the output or memory limit).
    case failed(status: Int32)
    /// The output was empty, larger than allowed, or not what the caller's check accepts.
    case badOutput
}
