import Configuration

/// Where a service listens and how it stops; read from `http.*` keys (`HTTP_HOST`, `HTTP_PORT`, ...), and where its
/// admin server listens (`ADMIN_HOST`, `ADMIN_PORT`).
public struct HTTPServerSettings: Sendable, Equatable {
    /// Interface to bind; loopback by default.
    public var host: String
    public var port: Int
    /// How long in-flight requests may take to finish after SIGTERM before the process stops anyway.
    public var drainTimeout: Duration
    /// How long the server's connections may stay open after it starts to stop: requests in progress finish within
    /// it, and whatever a client still holds open then is closed (`DrainingServer`), so that the process exits
    /// within `drainTimeout`. Half the drain timeout unless set.
    public var connectionDrain: Duration
    /// Largest request body accepted, in bytes.
    public var maxBodyBytes: Int
    /// The operators' listener (`/metrics`), apart from the public one.
    public var admin: AdminServerSettings

    /// Reads the settings, with `defaultPort` for this service.
    public init(config: ConfigReader, defaultPort: Int) throws {
        self.host = config.string(forKey: "http.host", default: "127.0.0.1")
        self.port = config.int(forKey: "http.port", default: defaultPort)
        self.drainTimeout = .seconds(config.double(forKey: "http.drain.timeout.seconds", default: 10))
        self.connectionDrain = config.double(forKey: "http.connection.drain.seconds").map { .seconds($0) } ?? drainTimeout / 2
        self.maxBodyBytes = config.int(forKey: "http.max.body.bytes", default: 1_048_576)
        self.admin = try AdminServerSettings(config: config, httpPort: port)
    }
}
