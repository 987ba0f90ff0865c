/// Why the rate-limit store gave no usable answer, beside the database's own errors.
enum RateLimitStoreFailure: Error, CustomStringConvertible {
    /// The statement took longer than `GATEWAY_RATE_LIMIT_STORE_TIMEOUT_SECONDS`.
    case timedOut
    /// The statement returned no row.
    case noAnswer

    var description: String {
        switch self {
        case .timedOut: "the rate-limit store did not answer in time"
        case .noAnswer: "the rate-limit store returned no row"
        }
    }
}
