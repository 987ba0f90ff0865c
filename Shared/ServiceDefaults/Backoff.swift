/// The waits between attempts at something that keeps failing: the ceiling starts at `initial` and doubles after
/// every failure up to `maximum`, and each wait is drawn at random between zero and the ceiling ("full jitter"), so
/// processes that failed together do not retry together. `reset()` after a success starts again from `initial`.
public struct Backoff: Sendable {
    public let initial: Duration
    public let maximum: Duration
    private var ceiling: Duration
    private let fraction: @Sendable () -> Double

    /// - Parameter fraction: the share of the ceiling to wait, in 0...1; random unless a test fixes it.
    public init(initial: Duration, maximum: Duration, fraction: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        precondition(initial >= .zero && maximum >= initial, "a backoff needs 0 <= initial <= maximum")
        self.initial = initial
        self.maximum = maximum
        self.ceiling = initial
        self.fraction = fraction
    }

    /// The wait before the next attempt; the ceiling doubles (up to `maximum`) for the one after.
    public mutating func next() -> Duration {
        let wait = ceiling * min(1, max(0, fraction()))
        ceiling = min(ceiling * 2, maximum)
        return wait
    }

    /// Starts again from `initial`, after a success.
    public mutating func reset() {
        ceiling = initial
    }

    /// Runs `operation` until it returns, waiting `next()` after each failure. `onFailure` hears of each error
    /// and the wait that follows; an error `isRetryable` refuses is thrown at once. Cancellation of the task (or a
    /// `CancellationError` from `operation`) ends it with `CancellationError`.
    @discardableResult
    public static func retrying<Result>(
        _ backoff: Backoff, isRetryable: (any Error) -> Bool = { _ in true },
        onFailure: (_ error: any Error, _ wait: Duration) -> Void = { _, _ in },
        _ operation: () async throws -> Result
    ) async throws -> Result {
        var backoff = backoff
        while true {
            try Task.checkCancellation()
            do {
                return try await operation()
            } catch let error as CancellationError {
                throw error
            } catch {
                guard isRetryable(error) else { throw error }
                let wait = backoff.next()
                onFailure(error, wait)
                try await Task.sleep(for: wait)
            }
        }
    }
}
