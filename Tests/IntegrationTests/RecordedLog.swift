import Logging
import Synchronization

/// The messages logged through `logger`, kept so a test can wait for a part to have done something it only logs (the
/// outbox relay's failed attempt: "outbox relay will retry").
final class RecordedLog: Sendable {
    private let messages = Mutex<[String]>([])

    /// A logger that records every message at `level` and above here.
    func logger(label: String = "recorded", level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// How many messages so far were exactly `message`.
    func count(of message: String) -> Int { messages.withLock { $0.filter { $0 == message }.count } }

    fileprivate func record(_ message: String) { messages.withLock { $0.append(message) } }

    /// Hands every message to the log.
    private struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { log.record(event.message.description) }
    }
}
