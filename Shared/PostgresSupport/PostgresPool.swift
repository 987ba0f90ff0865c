import Logging
import Metrics
import PostgresNIO
import ServiceDefaults
import ServiceLifecycle
import Tracing

/// A service's connection pool: postgres-nio's `PostgresClient`, through which every query, connection and
/// transaction of our code goes, so that the pool's use is measured (`PostgresPoolUsage`: connections in use and
/// idle, callers waiting). postgres-nio 1.33 counts none of this itself. Run it as a `Service`, like the client.
public struct PostgresPool: Service {
    /// The pool's name in its metrics: the schema it serves.
    public let name: String
    private let client: PostgresClient
    let usage: PostgresPoolUsage
    private let logger: Logger

    /// A pool for `settings`, logging its background events to `logger`; metrics go to `metrics` (tests pass their own).
    public init(settings: PostgresSettings, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        let usage = PostgresPoolUsage(pool: settings.schema, maximumConnections: settings.maximumConnections, metrics: metrics)
        var backgroundLogger = logger
        backgroundLogger.handler = PostgresPoolObserver(upstream: logger.handler, usage: usage)
        self.name = settings.schema
        self.client = PostgresClientFactory.make(settings, backgroundLogger: backgroundLogger)
        self.usage = usage
        self.logger = logger
    }

    public func run() async {
        await client.run()
    }

    /// Leases a connection for `body`; counted as waiting until the pool hands it over, then as in use.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        usage.requested()
        var leased = false
        defer { leased ? usage.released() : usage.abandoned() }
        return try await client.withConnection(isolation: isolation) { connection in
            leased = true
            usage.leased()
            return try await body(connection)
        }
    }

    /// Runs `query` on a leased connection and reads every row before the connection goes back.
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line) async throws -> PostgresRows {
        let logger = logger ?? self.logger
        return try await withConnection { connection in
            PostgresRows(try await connection.query(query, logger: logger, file: file, line: line).collect())
        }
    }

    /// Runs `body` in a transaction (BEGIN, then COMMIT, or ROLLBACK when it throws); errors come wrapped in
    /// `PostgresTransactionError`, as from postgres-nio's `withTransaction`.
    public func withTransaction<Result>(
        logger: Logger, file: String = #file, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(isolation: isolation) { connection in
            try await connection.withTransaction(logger: logger, file: file, line: line, isolation: isolation, body)
        }
    }

    /// Runs `body` in a transaction, committing when it returns and rolling back when it throws.
    /// Unlike `withTransaction`, an error thrown by `body` (such as an `APIError` meant for the client) comes out
    /// as itself rather than wrapped in `PostgresTransactionError`; failures of BEGIN or COMMIT stay wrapped.
    ///
    /// Inside traced work (a request, a consumed event) the transaction is a `SQL transaction` span, child of that
    /// work, and whatever `body` writes to the outbox carries the span's `traceparent`. Transactions outside any
    /// trace (background polling) make no span, so they do not start a new trace every few seconds.
    public func transaction<Result: Sendable>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        guard InstrumentationContext.current != nil, TraceContext.isTracing else {
            return try await untracedTransaction(logger: logger, body)
        }
        return try await TracedOperation.run("SQL transaction", ofKind: .client) { span in
            span.attributes["db.system.name"] = "postgresql"
            return try await untracedTransaction(logger: logger, body)
        }
    }

    private func untracedTransaction<Result: Sendable>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, isolation: isolation, body)
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError { throw closureError }
            throw error
        }
    }
}
