import Logging
import NIOSSL
import PostgresNIO

/// Builds the bounded, time-limited `PostgresClient` of a service from its settings (wrapped by `PostgresPool`).
enum PostgresClientFactory {
    /// The client for `settings`; its pool's events and its connections' background messages go to `backgroundLogger`.
    static func make(_ settings: PostgresSettings, backgroundLogger: Logger) -> PostgresClient {
        let tls: PostgresClient.Configuration.TLS =
            switch settings.tlsMode {
            case "require": .require(.makeClientConfiguration())
            case "prefer": .prefer(.makeClientConfiguration())
            default: .disable
            }
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: tls)
        configuration.options.minimumConnections = settings.minimumConnections
        configuration.options.maximumConnections = settings.maximumConnections
        configuration.options.connectTimeout = settings.connectTimeout
        let timeoutMilliseconds =
            settings.queryTimeout.components.seconds * 1000
            + settings.queryTimeout.components.attoseconds / 1_000_000_000_000_000
        configuration.options.additionalStartupParameters = [
            ("search_path", settings.schema),
            ("statement_timeout", String(timeoutMilliseconds)),
            ("application_name", backgroundLogger.label),
        ]
        return PostgresClient(configuration: configuration, backgroundLogger: backgroundLogger)
    }
}
