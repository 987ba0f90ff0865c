import Configuration

/// Where a process serves its operator routes (`/metrics`): a listener apart from the public one, on loopback unless
/// configured, so that neither clients nor the gateway's routes can reach it. Read from `admin.*` keys (`ADMIN_HOST`,
/// `ADMIN_PORT`).
public struct AdminServerSettings: Sendable, Equatable {
    /// Interface to bind; loopback by default.
    public var host: String
    /// Port to bind; 0 picks a free one.
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads the settings. The port defaults to the public port + 1000 (gateway 9080, auth 9081, meals 9082, metrics
    /// 9083, trends 9084, sharing 9085), and to 0 when the public port is 0, so that tests never collide.
    public init(config: ConfigReader, httpPort: Int) throws {
        let derived = httpPort == 0 ? 0 : httpPort + 1000
        guard let port = config.int(forKey: "admin.port") ?? (derived <= 65535 ? derived : nil) else {
            throw ConfigurationError.invalid("ADMIN_PORT", reason: "required when HTTP_PORT is above 64535 (its default is HTTP_PORT + 1000)")
        }
        guard (0...65535).contains(port) else { throw ConfigurationError.invalid("ADMIN_PORT", reason: "must be 0 to 65535") }
        self.init(host: config.string(forKey: "admin.host", default: "127.0.0.1"), port: port)
    }
}
