import Logging
import ServiceLifecycle

/// What a composition root hands to `main`: the long-lived parts in start order, how long to drain, and where the
/// admin server listens with which operator routes.
public struct RunnableService: Sendable {
    public var services: [any Service]
    public var drainTimeout: Duration
    public var admin: AdminServerSettings
    public var adminRoutes: AdminRoutes
    public var logger: Logger

    public init(services: [any Service], drainTimeout: Duration, admin: AdminServerSettings, adminRoutes: AdminRoutes = .none, logger: Logger) {
        self.services = services
        self.drainTimeout = drainTimeout
        self.admin = admin
        self.adminRoutes = adminRoutes
        self.logger = logger
    }
}
