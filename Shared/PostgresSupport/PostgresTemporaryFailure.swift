import PostgresNIO
import ServiceDefaults

/// A lost or refused connection, and the server's connection-exception (08) and operator-intervention (57P: shutdown,
/// restart, not accepting connections yet) states, mean the database is briefly away: 503, not 500.
extension PSQLError: TemporaryDependencyFailure {
    public var isTemporary: Bool {
        switch code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            let state = serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P")
        default:
            return false
        }
    }
}
