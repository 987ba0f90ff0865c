/// Thrown by `withTimeLimit` when the operation did not finish in time.
public struct TimeLimitExceeded: Error, Equatable {
    public var limit: Duration

    public init(limit: Duration) {
        self.limit = limit
    }
}

/// Runs `operation`, cancelling it and throwing `TimeLimitExceeded` once `limit` has passed. Unlike an HTTP client's
/// deadline, which ends when the response head arrives, this also covers reading the body (the vision provider's
/// answers, Open Food Facts').
public func withTimeLimit<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimeLimitExceeded(limit: limit)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
