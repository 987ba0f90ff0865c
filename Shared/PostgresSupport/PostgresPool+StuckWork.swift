import PostgresNIO

extension PostgresPool {
    /// What ended an attempt of `abandoningIfStuck`.
    private enum AttemptEnd<Value: Sendable>: Sendable {
        case finished(Result<Value, any Error>)
        case stuck
    }

    /// Runs `work` (database work through this pool) in a task of its own, and gives up on it when the pool has lost
    /// a leased connection since it started and it has not finished `grace` later: postgres-nio 1.33 never answers a
    /// query written to a connection that has already closed, so after a PostgreSQL restart such work would wait
    /// for good, and with it whatever waits on it (an outbox relay publishing nothing until restarted, a shutdown
    /// that never ends). The abandoned attempt is cancelled and left behind, holding nothing but that dead
    /// connection's lease, and this throws `PostgresConnectionLost` so the caller retries. Cancelling the caller
    /// cancels `work` and returns at once, without waiting for it; with `finishingOnCancel`, it waits for the cancelled
    /// `work` to end unless the pool has lost a connection since it started (so that a consumer is not closed under
    /// a healthy attempt's commit, while one that may be stuck is still left behind).
    public func abandoningIfStuck<Value: Sendable>(
        grace: Duration, finishingOnCancel: Bool = false, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let lostBefore = connectionsLostWhileLeased
        let (ends, report) = AsyncStream.makeStream(of: AttemptEnd<Value>.self)
        let attempt = Task {
            do {
                report.yield(.finished(.success(try await work())))
            } catch {
                report.yield(.finished(.failure(error)))
            }
        }
        // Wakes on the pool's first loss of a leased connection after the start (no timer while none is lost), then
        // gives the work `grace` to finish.
        let watchdog = Task {
            await self.waitForConnectionLoss(beyond: lostBefore)
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: grace)
            if !Task.isCancelled { report.yield(.stuck) }
        }
        defer { watchdog.cancel() }
        let end = await withTaskCancellationHandler {
            var iterator = ends.makeAsyncIterator()
            return await iterator.next()
        } onCancel: {
            attempt.cancel()
            report.finish()
        }
        switch end {
        case .finished(let result):
            return try result.get()
        case .stuck:
            attempt.cancel()
            throw PostgresConnectionLost()
        case nil:
            if finishingOnCancel, connectionsLostWhileLeased == lostBefore { _ = await attempt.result }
            throw CancellationError()
        }
    }
}
