import HTTPTypes
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

    /// Logs the access line of a completed request on `logger` at `level`, when the logger lets that level through:
    /// method, path (without its query, share tokens redacted), status and duration in microseconds, plus `extra`
    /// for what the logger does not carry already (the request id, on the gateway's pass-through). The router's
    /// requests (`RequestIdMiddleware`) and the pass-through's write the same line.
    public static func record(
        on logger: Logger, level: Logger.Level, method: HTTPRequest.Method, path: Substring, status: HTTPResponse.Status,
        since started: ContinuousClock.Instant, extra: @autoclosure () -> Logger.Metadata = [:]
    ) {
        guard logger.logLevel <= level else { return }
        var metadata = extra()
        metadata["method"] = .string(method.rawValue)
        metadata["path"] = .string(LoggedPath.redacting(String(path.prefix { $0 != "?" })))
        metadata["status"] = .stringConvertible(status.code)
        metadata["duration_us"] = .stringConvertible(Int((ContinuousClock.now - started) / .microseconds(1)))
        logger.log(level: level, "request completed", metadata: metadata)
    }
}
