import Configuration
import Foundation
import ServiceDefaults

/// How a service reaches its database; read from `postgres.*` keys (`POSTGRES_HOST`, `POSTGRES_PASSWORD`, ...).
public struct PostgresSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var database: String
    public var username: String
    public var password: String
    /// The schema this service owns; also its `search_path`, so SQL names tables unqualified.
    public var schema: String
    /// Connections kept open even when idle.
    public var minimumConnections: Int
    /// Upper bound of the pool; further queries wait for a free connection.
    public var maximumConnections: Int
    public var connectTimeout: Duration
    /// Server-side `statement_timeout` for every query.
    public var queryTimeout: Duration
    /// `disable`, `prefer` or `require`.
    public var tlsMode: String

    /// Reads the settings; the password is required and never has a default.
    public init(config: ConfigReader, defaultSchema: String, defaultUser: String) throws {
        self.host = config.string(forKey: "postgres.host", default: "127.0.0.1")
        self.port = config.int(forKey: "postgres.port", default: 15432)
        self.database = config.string(forKey: "postgres.database", default: "nutritionai")
        self.username = config.string(forKey: "postgres.user", default: defaultUser)
        guard let password = config.string(forKey: "postgres.password", isSecret: true), !password.isEmpty else {
            throw ConfigurationError.missing("POSTGRES_PASSWORD", hint: "the password of database role \(defaultUser)")
        }
        self.password = password
        self.schema = config.string(forKey: "postgres.schema", default: defaultSchema)
        // 0 by default: postgres-nio 1.33.2's pool traps (precondition `minimumConcurrentConnections <= active`,
        // PoolStateMachine+ConnectionGroup) when a lease arrives while fewer than the minimum connections are up, which
        // is what a PostgreSQL restart leaves; the fault run crashed auth, meals and metrics that way with 5.
        self.minimumConnections = config.int(forKey: "postgres.pool.min", default: 0)
        // 4 by default, from the saturation runs (docs/PERFORMANCE.md, issue 21): on 2 cores, 4 per service served
        // 10-20% more requests at lower CPU per request than 8, and about 1.5x what 20 did (more backends than cores
        // only queue inside PostgreSQL). Each listener holds one of them all the time: the outbox relay's, and an inbox
        // service's publish notices or auth's revocation notices, so two are left for requests.
        self.maximumConnections = config.int(forKey: "postgres.pool.max", default: 4)
        self.connectTimeout = .seconds(config.double(forKey: "postgres.connect.timeout.seconds", default: 10))
        self.queryTimeout = .seconds(config.double(forKey: "postgres.query.timeout.seconds", default: 10))
        self.tlsMode = config.string(forKey: "postgres.tls", default: "disable")
        guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
            throw ConfigurationError.invalid("POSTGRES_SCHEMA", reason: "must be a lower-case SQL identifier")
        }
        guard minimumConnections >= 0, maximumConnections >= max(1, minimumConnections) else {
            throw ConfigurationError.invalid("POSTGRES_POOL_MAX", reason: "must be at least 1 and at least POSTGRES_POOL_MIN")
        }
    }
}
