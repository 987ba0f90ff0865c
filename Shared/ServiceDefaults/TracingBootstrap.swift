import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Turns on OpenTelemetry tracing for the process when an OTLP endpoint is configured, and leaves the no-op
/// tracer in place otherwise (no spans are made, so tracing costs next to nothing while it is off).
///
/// Only traces are exported (OTLP over HTTP, protobuf by default, `http/json` on request): metrics stay on
/// Prometheus and logs on stdout. The standard `OTEL_*` variables (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`,
/// `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_EXPORTER_OTLP_HEADERS`, ...) are read by swift-otel itself.
public enum TracingBootstrap {
    /// Whether `environment` asks for traces: an OTLP endpoint is set, and neither the SDK nor the traces
    /// exporter is switched off.
    public static func isRequested(environment: [String: String]) -> Bool {
        let endpoint = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? environment["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? ""
        guard !endpoint.trimmingCharacters(in: .whitespaces).isEmpty else { return false }
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if environment["OTEL_TRACES_EXPORTER"]?.lowercased() == "none" { return false }
        return true
    }

    /// The configuration every process starts from: traces only, named `service` unless `OTEL_SERVICE_NAME`
    /// says otherwise, and swift-otel's own messages on the service's log.
    public static func configuration(service: String, logger: Logger) -> OTel.Configuration {
        var configuration = OTel.Configuration.default
        configuration.serviceName = service
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.diagnosticLogger = .custom(logger)
        return configuration
    }

    /// Bootstraps the process-wide tracer when `environment` asks for traces (call once, from `main`); returns
    /// the exporter's service to run beside the others, or nil when tracing stays off.
    public static func bootstrap(
        service: String, environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) throws -> (any Service)? {
        guard isRequested(environment: environment) else { return nil }
        let backend: (factory: any Tracer, service: any Service)
        do {
            backend = try OTel.makeTracingBackend(configuration: configuration(service: service, logger: logger))
        } catch {
            throw ConfigurationError.invalid("OTEL_EXPORTER_OTLP_ENDPOINT", reason: "tracing cannot start: \(error)")
        }
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
