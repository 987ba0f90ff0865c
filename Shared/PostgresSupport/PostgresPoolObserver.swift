import Logging

/// The log handler of a pool's background logger: passes every message on to the service's own handler at the
/// service's level, and reads postgres-nio's connection events (debug level, whatever the service logs) into
/// `PostgresPoolUsage`. postgres-nio 1.33 offers no other way to learn how many connections its pool holds; its
/// messages are matched exactly, and `PostgresPoolMetricsTests` fails if an upgrade changes them.
struct PostgresPoolObserver: LogHandler {
    /// postgres-nio's messages (`PostgresClientMetrics`) for a connection being opened, failing to open, and closed.
    static let opening = "Creating new connection"
    static let failedToOpen = "Connection creation failed"
    static let closed = "Connection closed"
    /// The metadata key (postgres-nio's `psql_connection_id`) naming the connection of those messages.
    static let connectionIdKey = "psql_connection_id"

    private var upstream: any LogHandler
    private let usage: PostgresPoolUsage

    init(upstream: any LogHandler, usage: PostgresPoolUsage) {
        self.upstream = upstream
        self.usage = usage
    }

    /// At most `debug`, so that the connection events arrive; messages below the service's level stop here.
    var logLevel: Logger.Level {
        get { min(upstream.logLevel, .debug) }
        set { upstream.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { upstream.metadata }
        set { upstream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { upstream[metadataKey: key] }
        set { upstream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level <= .info, let id = event.metadata?[Self.connectionIdKey].map({ "\($0)" }) {
            switch event.message.description {
            case Self.opening: usage.opening(id)
            case Self.failedToOpen, Self.closed: usage.closed(id)
            default: break
            }
        }
        if event.level >= upstream.logLevel { upstream.log(event: event) }
    }
}
