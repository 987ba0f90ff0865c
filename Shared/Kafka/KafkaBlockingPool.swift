import NIOPosix

/// The threads on which every blocking librdkafka call runs, so the cooperative pool never blocks.
/// Each producer's poll loop and each consumer read holds one thread for at most one poll timeout.
enum KafkaBlockingPool {
    /// Sized for a service's producer, its consumers and occasional admin calls at once.
    static let threadCount = 8

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
        return pool
    }()

    /// Runs `work` on a pool thread without waiting for it (for `deinit`, which cannot await).
    static func submit(_ work: @escaping @Sendable () -> Void) {
        pool.submit { _ in work() }
    }

    /// Runs `work` on a pool thread and returns its result to the awaiting task.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }
}
