import Metrics
import Prometheus

/// swift-metrics on the Prometheus registry, like swift-prometheus's `PrometheusMetricsFactory` (whose buckets it
/// takes), but registering every metric with its help text from `MetricHelp`, which that factory cannot: Prometheus
/// and `promtool check metrics` want a `# HELP` line for each metric. A metric `MetricHelp` does not describe is
/// exposed without one, and the test command's promtool check fails on it.
public struct DescribedPrometheusFactory: MetricsFactory {
    public let registry: PrometheusCollectorRegistry
    /// The buckets of every timer (`Timer`, a duration histogram).
    public var durationBuckets: [Duration]
    /// The buckets of every aggregating recorder (a value histogram).
    public var valueBuckets: [Double]

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        let library = PrometheusMetricsFactory(registry: registry)
        durationBuckets = library.defaultDurationHistogramBuckets
        valueBuckets = library.defaultValueHistogramBuckets
    }

    /// The registry's name for `label` (swift-metrics labels here use dots: `hb.requests.total`), and its help.
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        let name = label.replacingOccurrences(of: ".", with: "_")
        return MetricNameDescriptor(metricName: name, unitName: "", helpText: MetricHelp.text(for: name) ?? "")
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: valueBuckets)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: durationBuckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    public func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    public func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
