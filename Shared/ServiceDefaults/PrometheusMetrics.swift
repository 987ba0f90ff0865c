import Hummingbird
import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics, and the `/metrics` route that exposes it.
public enum PrometheusMetrics {
    /// Bootstraps swift-metrics on first use; a process has exactly one metrics backend.
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// Bootstraps swift-metrics now, before any metric is created; call once at process start.
    public static func bootstrap() {
        _ = registry
    }

    /// Adds `GET /metrics` in the Prometheus text format.
    public static func addRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
