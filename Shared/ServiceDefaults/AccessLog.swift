import Logging
import Synchronization

/// The level of the line each request logs when it completes (`request completed`, with method, path, status and
/// duration): `ACCESS_LOG_LEVEL`, default `debug`, so that a process at the usual `info` writes no line per request
/// (the request metrics count every request). `ACCESS_LOG_LEVEL=info` brings the access log back.
public enum AccessLog {
    private static let configured = Mutex(Logger.Level.debug)

    /// The configured level; read when a router is built.
    public static var level: Logger.Level { configured.withLock { $0 } }

    /// Sets the level, once, at start (`ServiceRuntime.bootstrapLogging`).
    static func configure(_ level: Logger.Level) { configured.withLock { $0 = level } }
}
