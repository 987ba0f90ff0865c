/// How a `BoundedChildProcess` hands the tool its input, or takes its output: as a file named in its arguments, or
/// as that file connected to its standard input or output.
public enum ChildProcessStream: Sendable {
    /// The file's path is in the arguments; the standard stream is `/dev/null`.
    case namedFile
    /// The file is the tool's standard input (or output).
    case standardStream
}
