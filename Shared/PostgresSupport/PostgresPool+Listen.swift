import Logging
import PostgresNIO

extension PostgresPool {
    /// Holds one connection listening on `channel` for as long as the calling task runs, and calls `received` once on
    /// each (re)connection with nil (for what was sent while nothing listened) and with the payload of every
    /// notification. Reconnects a second after a failure, and when the listen waits on a connection lost under it (a
    /// PostgreSQL restart: `abandoningIfStuck` with `lostConnectionGrace`), which would otherwise listen for good to
    /// nothing. Returns when the task is cancelled.
    public func listen(
        to channel: String, lostConnectionGrace: Duration, logger: Logger, received: @escaping @Sendable (String?) async -> Void
    ) async {
        while !Task.isCancelled {
            do {
                try await abandoningIfStuck(grace: lostConnectionGrace) { [self] in
                    try await withConnection { connection in
                        let notifications = try await connection.listen(channel)
                        await received(nil)
                        for try await notification in notifications { await received(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug(
                    "listener reconnecting", metadata: ["channel": .string(channel), "error": .string(LogSafeError.describe(error))])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
