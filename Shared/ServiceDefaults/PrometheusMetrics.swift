import Hummingbird
import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics (each metric with its help text: `MetricHelp`), and the
/// `/metrics` route that exposes it (on the admin server only: `AdminServer`).
public enum PrometheusMetrics {
    /// Bootstraps swift-metrics on first use; a process has exactly one metrics backend.
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = DescribedPrometheusFactory(registry: registry)
        // Beyond the default 10 s: the gateway answers 504 after 30 s and a photo's vision attempt may take 20 s.
        factory.durationBuckets += [.seconds(20), .seconds(30), .seconds(60)]
        MetricsSystem.bootstrap(factory)
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
