import Configuration
import Foundation
import Hummingbird
import Logging
import Metrics
import ServiceLifecycle

/// Process-level set-up shared by every executable: JSON logs, and running services until a signal.
public enum ServiceRuntime {
    /// Points swift-log at JSON lines on stdout at `log.level` (`LOG_LEVEL`, default `info`), with each request's line
    /// at `access.log.level` (`ACCESS_LOG_LEVEL`, default `debug`, see `AccessLog`); call once, from `main`.
    public static func bootstrapLogging(config: ConfigReader) {
        let level = Logger.Level(rawValue: config.string(forKey: "log.level", default: "info")) ?? .info
        AccessLog.configure(Logger.Level(rawValue: config.string(forKey: "access.log.level", default: "debug")) ?? .debug)
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
    }

    /// Runs `services` until SIGTERM or SIGINT, then shuts them down in reverse order, giving in-flight
    /// work at most `drainTimeout` before cancelling it.
    public static func run(_ services: [any Service], drainTimeout: Duration, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = drainTimeout
        configuration.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// A router with the platform's middleware (request span, request id, error shape, request metrics) and the
    /// health routes; `/metrics` is on the admin server, not here. The metrics sit inside the error middleware so that they see a
    /// handler's error as an error (counted with the status the client gets) before it becomes the error shape.
    public static func makeRouter(
        service: String, checks: [any ReadinessCheck], metrics: any MetricsFactory = MetricsSystem.factory
    ) -> Router<AppRequestContext> {
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: RequestTracingMiddleware())
        router.add(middleware: RequestIdMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: RequestMetricsMiddleware(factory: metrics))
        HealthController(service: service, checks: checks).addRoutes(to: router)
        return router
    }
}

extension ServiceRuntime {
    /// The whole body of an executable's `main`: environment configuration, JSON logs, tracing when an OTLP endpoint
    /// is set, build, run with the admin server (first, so that it stops last and `/metrics` still answers while the
    /// process drains). A configuration or start-up error ends the process with status 1 and one clear log line.
    public static func main(service: String, build: @Sendable (ConfigReader, Logger) async throws -> RunnableService) async {
        let config = ConfigReader(provider: EnvironmentVariablesProvider())
        bootstrapLogging(config: config)
        PrometheusMetrics.bootstrap()
        let logger = Logger(label: service)
        do {
            // First in the group, so it stops last and exports the spans of everyone else's shutdown.
            let tracing = try TracingBootstrap.bootstrap(service: service, logger: logger)
            let runnable = try await build(config, logger)
            let admin = AdminServer.makeService(settings: runnable.admin, service: service, routes: runnable.adminRoutes, logger: logger)
            try await run((tracing.map { [$0] } ?? []) + [admin] + runnable.services, drainTimeout: runnable.drainTimeout, logger: logger)
        } catch {
            logger.critical("\(service) stopped: \(error)")
            exit(1)
        }
    }
}
