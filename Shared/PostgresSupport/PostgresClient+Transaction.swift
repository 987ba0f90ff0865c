import PostgresNIO

extension PostgresClient {
    /// Runs `body` in a transaction, committing when it returns and rolling back when it throws.
    /// Unlike `withTransaction`, an error thrown by `body` (such as an `APIError` meant for the client) comes out
    /// as itself rather than wrapped in `PostgresTransactionError`; failures of BEGIN or COMMIT stay wrapped.
    public func transaction<Result: Sendable>(
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
