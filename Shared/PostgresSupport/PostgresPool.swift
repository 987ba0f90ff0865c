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
    private let lostLeases = LostLeaseCounter()
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

    /// Leases a connection for `body`; counted as waiting until the pool hands it over, then as in use. A connection
    /// that closed before `body` could use it throws `PostgresConnectionLost` at once: postgres-nio 1.33 never answers
    /// a query written to a closed connection.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        usage.requested()
        var leased = false
        defer { leased ? usage.released() : usage.abandoned() }
        return try await client.withConnection(isolation: isolation) { connection in
            leased = true
            usage.leased()
            lostLeases.leased(connection)
            defer { lostLeases.released(connection) }
            guard !connection.isClosed else { throw PostgresConnectionLost() }
            return try await body(connection)
        }
    }

    /// How many connections have closed while leased, since the pool started. A caller whose work outlives such a
    /// loss may be waiting on a query postgres-nio 1.33 will never answer (one written after the close): see
    /// `InboxConsumer`, which abandons and retries such work.
    public var connectionsLostWhileLeased: Int { lostLeases.count }

    /// Returns once more than `count` connections were lost while leased (`connectionsLostWhileLeased`), or when the
    /// waiting task is cancelled.
    public func waitForConnectionLoss(beyond count: Int) async { await lostLeases.waitForLoss(beyond: count) }

    /// Runs `query` on a leased connection and reads every row before the connection goes back.
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line) async throws -> PostgresRows {
        let logger = logger ?? self.logger
        return try await withConnection { connection in
            PostgresRows(try await connection.query(query, logger: logger, file: file, line: line).collect())
        }
    }

    /// Runs a prepared statement on a leased connection and reads every row before the connection goes back.
    /// postgres-nio prepares it once per connection, so later runs skip PostgreSQL's parse and plan: for the hottest
    /// reads (a primary-key look-up per dashboard read or share view) that doubled what PostgreSQL serves per core
    /// (`docs/PERFORMANCE.md`, issue 21).
    public func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> [Statement.Row] {
        let logger = logger ?? self.logger
        return try await withConnection { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger, file: file, line: line) { rows.append(row) }
            return rows
        }
    }

    /// Runs `body` in a transaction, committing when it returns and rolling back when it throws. Errors come out as
    /// themselves: the one `body` threw (such as an `APIError` meant for the client), or the failure of BEGIN or COMMIT.
    ///
    /// A transaction whose connection was lost is not rolled back (the server ends it with the session): postgres-nio
    /// 1.33 never answers a query written to a connection that has already closed, so a ROLLBACK sent after the
    /// server's "terminating connection" would hold the caller, and its pooled connection, for good.
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
        try await withConnection(isolation: isolation) { connection in
            try await connection.query("BEGIN;", logger: logger)
            let result: Result
            do {
                result = try await body(connection)
            } catch {
                if !connection.isClosed, !PostgresConnectionLost.isLoss(error) {
                    do {
                        try await connection.query("ROLLBACK;", logger: logger)
                    } catch {
                        logger.debug("rollback failed", metadata: ["error": .string(LogSafeError.describe(error))])
                    }
                }
                throw error
            }
            guard !connection.isClosed else { throw PostgresConnectionLost() }
            try await connection.query("COMMIT;", logger: logger)
            return result
        }
    }
}
