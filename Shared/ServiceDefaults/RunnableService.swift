import Logging
import ServiceLifecycle

/// What a composition root hands to `main`: the long-lived parts in start order, and how long to drain.
public struct RunnableService: Sendable {
    public var services: [any Service]
    public var drainTimeout: Duration
    public var logger: Logger

    public init(services: [any Service], drainTimeout: Duration, logger: Logger) {
        self.services = services
        self.drainTimeout = drainTimeout
        self.logger = logger
    }
}
