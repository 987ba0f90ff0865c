import PostgresNIO

/// Describes an error for a log line without SQL text, bound values or server messages that may quote user data.
public enum LogSafeError {
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState].map { " sqlstate \($0)" } ?? ""
            return "postgres \(error.code)\(state)"
        case let error as any CustomStringConvertible where !(error is any CustomDebugStringConvertible):
            return error.description
        default:
            return String(reflecting: type(of: error))
        }
    }
}
