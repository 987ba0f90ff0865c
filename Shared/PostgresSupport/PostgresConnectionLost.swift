import PostgresNIO
import ServiceDefaults

/// The connection a transaction ran on closed under it (server restart, `pg_terminate_backend`, a dropped socket).
/// The database is briefly away, so callers retry or answer 503; the server has already ended the transaction.
public struct PostgresConnectionLost: Error, TemporaryDependencyFailure, CustomStringConvertible {
    public init() {}

    public var isTemporary: Bool { true }
    public var description: String { "postgres connection lost" }

    /// Whether `error` says the connection is gone, so that nothing more may be written to it: postgres-nio 1.33
    /// never completes a query written to a closed connection.
    public static func isLoss(_ error: any Error) -> Bool {
        switch error {
        case is PostgresConnectionLost:
            return true
        case let error as PSQLError:
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
                return true
            case .server:
                // Connection exceptions (08) and the server ending the session (57P01-57P03) close it right after.
                let state = error.serverInfo?[.sqlState] ?? ""
                return state.hasPrefix("08") || state.hasPrefix("57P")
            default:
                return false
            }
        default:
            return false
        }
    }
}
