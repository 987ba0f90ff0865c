import Metrics
import Prometheus
import Testing

@testable import ServiceDefaults

/// Every metric is exposed with its `# HELP` line from `MetricHelp`, as `promtool check metrics` asks.
@Suite("Metrics with their help text")
struct DescribedPrometheusFactoryTests {
    @Test("counters, gauges, timers and histograms carry their help line; a metric MetricHelp lacks has none")
    func helpLines() throws {
        let registry = PrometheusCollectorRegistry()
        let factory = DescribedPrometheusFactory(registry: registry)
        Counter(label: "hb.requests.total", dimensions: [("http.route", "/x")], factory: factory).increment()
        Gauge(label: "postgres_pool_waiters", factory: factory).record(2)
        Timer(label: "http.server.request.duration", dimensions: [("http.route", "/x")], factory: factory).recordSeconds(0.5)
        Recorder(label: "outbox_unsent_rows", dimensions: [("topic", "t")], aggregate: false, factory: factory).record(3)
        Counter(label: "made_up_total", factory: factory).increment()
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)

        for name in ["hb_requests_total", "postgres_pool_waiters", "http_server_request_duration", "outbox_unsent_rows"] {
            let help = try #require(MetricHelp.text(for: name))
            #expect(text.contains("# HELP \(name) \(help)\n"), "\(name) has no help line in:\n\(text)")
        }
        #expect(text.contains(#"hb_requests_total{http_route="/x"} 1"#))
        #expect(text.contains("http_server_request_duration_count"))
        #expect(!text.contains("# HELP made_up_total"))
    }
}
