import PostgresNIO
import ServiceDefaults
import Tracing

extension PostgresClient {
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
