import Logging
import ServiceLifecycle

/// Runs an HTTP application so that it stops within its drain whatever its clients hold open. At graceful shutdown the
/// server stops accepting, closes its idle connections and lets each request in progress finish; `closeAfter` later
/// it closes every connection still open (a half-sent body, a reader that does not take its answer, a stream), so
/// that the services after it still have their share of the process's drain. When cancelled, it closes them at once:
/// a connection left open would keep the server, and so the process, from ever ending.
public struct DrainingServer<Application: Service>: Service {
    private let application: Application
    private let connections: OpenConnections
    private let closeAfter: Duration
    private let logger: Logger

    /// `application`'s connections must carry `connections`' handler (`OpenConnections.handler()`).
    public init(_ application: Application, connections: OpenConnections, closeAfter: Duration, logger: Logger) {
        self.application = application
        self.connections = connections
        self.closeAfter = closeAfter
        self.logger = logger
    }

    private enum Ended: Sendable {
        case application, drainTimer
    }

    public func run() async throws {
        try await withThrowingTaskGroup(of: Ended.self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await application.run()
                } onCancel: {
                    connections.closeAll()
                }
                return .application
            }
            group.addTask {
                do {
                    try await gracefulShutdown()
                    try await Task.sleep(for: closeAfter)
                } catch {
                    return .drainTimer  // the application ended first, or the process is cancelled
                }
                let closed = connections.closeAll()
                if closed > 0 {
                    logger.notice("closed the connections still open at the end of the drain", metadata: ["connections": "\(closed)"])
                }
                return .drainTimer
            }
            while let ended = try await group.next() {
                if ended == .application { break }
            }
            group.cancelAll()
        }
    }
}
